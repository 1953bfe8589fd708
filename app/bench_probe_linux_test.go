package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
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

// measureIdle reads a process's context switches second by second: a
// shell that wakes ten times a second for 3 s has three seconds measured,
// each with switches, adding up to the window's own count, and the seconds
// over a bound are the ones listed.
func TestMeasureIdleCountsEachSecond(t *testing.T) {
	cmd := exec.Command("sh", "-c", "while :; do sleep 0.1; done")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sh to start: %v", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	w, err := measureIdle(t.Context(), cmd.Process.Pid, 3*time.Second)
	if err != nil || !w.ok {
		t.Fatalf("measureIdle: %v (read: %v)", err, w.ok)
	}
	var sum int64
	for _, n := range w.perSecond {
		if n == 0 {
			t.Errorf("a second without a switch of a shell waking ten times a second: %v", w.perSecond)
		}
		sum += n
	}
	if len(w.perSecond) != 3 || sum != w.switches {
		t.Errorf("seconds %v (sum %d), want 3 adding up to the window's %d", w.perSecond, sum, w.switches)
	}
	for _, tt := range []struct {
		seconds []int64
		want    string
	}{
		{[]int64{0, 85, 3, 11}, "2 s: 85, 4 s: 11"},
		{[]int64{10, 2}, "none"},
	} {
		if got := (idleWindow{perSecond: tt.seconds}).busySeconds(10); got != tt.want {
			t.Errorf("busySeconds(%v) = %q, want %q", tt.seconds, got, tt.want)
		}
	}
}
