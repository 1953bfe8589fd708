//go:build unix

package usage

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestARunLeavesALockedCacheAlone: a run that would append to the cache
// file while another holds its lock (in the middle of its own append)
// writes the cache whole to a new file put in its place instead, and
// leaves the locked file's bytes as they were; with the lock free, the
// same change is appended to the file. The lock is flock's, taken here as
// another run takes it.
func TestARunLeavesALockedCacheAlone(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	writeRandomHistory(t, projects, 4, 60, 5)
	sessions, err := filepath.Glob(filepath.Join(projects, "*", "*.jsonl"))
	if err != nil || len(sessions) < 2 {
		t.Fatalf("sessions %v: %v", sessions, err)
	}
	path := filepath.Join(t.TempDir(), CacheFile)
	var logged []string
	logf := func(msg string) { logged = append(logged, msg) }
	readWith(t, projects, "", &Cache{Path: path, Log: logf})
	for i, tt := range []struct {
		name   string
		locked bool
	}{
		{"lock free: appended", false},
		{"locked: written whole", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			held, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close() // and its lock
			if tt.locked {
				if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
					t.Fatal(err)
				}
			}
			before := fileBytes(t, held)
			// A session gone: the cache changes, and room for dead bytes
			// enough that an append is what a run would do.
			if err := os.Remove(sessions[i]); err != nil {
				t.Fatal(err)
			}
			c := &Cache{Path: path, Log: logf, slack: 1 << 30}
			got := readWith(t, projects, "", c)
			sameReports(t, tt.name, readWith(t, projects, "", nil), got)
			after := fileBytes(t, held)
			now, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			was, err := held.Stat()
			if err != nil {
				t.Fatal(err)
			}
			if tt.locked {
				if c.appended != 0 || c.rewritten != 1 || !bytes.Equal(before, after) || os.SameFile(now, was) {
					t.Errorf("appended %d times, written whole %d times; the locked file changed %v, still in place %v: want written whole to a new file, the locked one as it was",
						c.appended, c.rewritten, !bytes.Equal(before, after), os.SameFile(now, was))
				}
			} else if c.appended != 1 || c.rewritten != 0 || len(after) <= len(before) || !os.SameFile(now, was) {
				t.Errorf("appended %d times, written whole %d times; the file grew from %d to %d B, still in place %v: want one append to it",
					c.appended, c.rewritten, len(before), len(after), os.SameFile(now, was))
			}
		})
	}
	c := &Cache{Path: path, Log: logf}
	readWith(t, projects, "", c)
	if len(logged) > 0 || c.reused.Load() == 0 {
		t.Errorf("after: %q logged, %d groups taken from the cache", logged, c.reused.Load())
	}
}

// fileBytes is all that f holds now.
func fileBytes(t *testing.T, f *os.File) []byte {
	t.Helper()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, info.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		t.Fatal(err)
	}
	return b
}
