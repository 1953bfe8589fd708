//go:build linux

package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSmallReadsWholeFiles: the scan's reader of /proc files gives
// what os.ReadFile gives, for files smaller and larger than its buffer,
// empty ones, and the live process's own cmdline.
func TestReadSmallReadsWholeFiles(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 4095, 4096, 4097, 100000} {
		p := filepath.Join(dir, "f")
		want := []byte(strings.Repeat("a\x00", n)[:n])
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := readSmall(p, make([]byte, 0, 4096))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
	}
	want, _ := os.ReadFile("/proc/self/cmdline")
	if got, err := readSmall("/proc/self/cmdline", nil); err != nil || !bytes.Equal(got, want) {
		t.Errorf("/proc/self/cmdline: %q, %v; want %q", got, err, want)
	}
	if _, err := readSmall(filepath.Join(dir, "missing"), nil); err == nil {
		t.Error("a missing file read without error")
	}
}
