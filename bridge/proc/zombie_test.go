//go:build linux || darwin

package proc

import (
	"os/exec"
	"testing"
	"time"
)

// A child that has exited but is not reaped yet is a zombie; running, or
// reaped, it is not.
func TestZombie(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	pid := cmd.Process.Pid
	if Zombie(pid) {
		t.Error("a running process is a zombie")
	}
	cmd.Process.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for !Zombie(pid) {
		if time.Now().After(deadline) {
			t.Fatal("a killed child never showed as a zombie")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Wait()
	if Zombie(pid) {
		t.Error("a reaped process is a zombie")
	}
}
