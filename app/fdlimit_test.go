//go:build linux || darwin

package main

import (
	"syscall"
	"testing"
)

// TestRaiseFileLimit lowers the soft limit, as launchd's 256 is, and
// checks it comes back up to the hard limit (bounded), then restores it.
func TestRaiseFileLimit(t *testing.T) {
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &orig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &orig) })
	if orig.Max < 512 {
		t.Skipf("hard limit %d too low to test", orig.Max)
	}
	low := orig
	low.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	before, after, err := raiseFileLimit()
	if err != nil {
		t.Fatal(err)
	}
	var now syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now)
	want := min(uint64(orig.Max), maxFileLimit)
	if before != 256 || after != want || uint64(now.Cur) != want {
		t.Errorf("before %d after %d now %d, want 256 → %d", before, after, now.Cur, want)
	}
}
