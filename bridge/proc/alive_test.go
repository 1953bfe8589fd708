package proc

import (
	"os"
	"os/exec"
	"testing"
)

func TestAlive(t *testing.T) {
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
	if Alive(0) || Alive(-1) {
		t.Error("pid 0 or -1 counted as a process")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true to run:", err)
	}
	if Alive(cmd.Process.Pid) {
		t.Errorf("pid %d, reaped, still alive", cmd.Process.Pid)
	}
}
