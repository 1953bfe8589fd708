package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// openFDs counts descriptors with one stat of /proc/<pid>/fd where the
// kernel reports the count as its size, else by listing it. A child given
// ten files besides its three standard ones holds those thirteen, and
// whatever this test inherited without close-on-exec; a sleeping child's
// listing does not change under the count.
func TestOpenFDsCountsDescriptors(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	for i := range 10 {
		f, err := os.Create(filepath.Join(t.TempDir(), "f"+string(rune('a'+i))))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to start: %v", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	listed, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	if got := openFDs(cmd.Process.Pid); got != len(listed) || got < 13 {
		t.Fatalf("openFDs = %d, want the %d listed (at least 13)", got, len(listed))
	}
}
