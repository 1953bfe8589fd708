//go:build unix

// Package fifotest puts a FIFO where a test wants a file that a plain
// open would wait on forever (a FIFO with no writer), and frees such an
// open when the test ends.
package fifotest

import (
	"os"
	"syscall"
	"testing"
)

// Make makes a FIFO at path with perm, skipping the test where the file
// system cannot hold one. When the test ends it opens the FIFO for
// writing a few times, without waiting, so that a read the code under
// test opened and blocked in (before its fix) returns, and the test
// binary can end.
func Make(t testing.TB, path string, perm os.FileMode) {
	t.Helper()
	if err := syscall.Mkfifo(path, uint32(perm)); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	t.Cleanup(func() {
		for range 4 {
			if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	})
}
