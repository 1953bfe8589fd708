//go:build unix

package regular

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Each way in refuses what is not a regular file, at once, and reads or
// opens what is. A hang guard stands over every call: before this package,
// a FIFO blocked its opener forever.
func TestOnlyRegularFilesOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "state.json")
	if err := os.WriteFile(file, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "rollout.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	ways := map[string]func(string) error{
		"Open":     func(p string) error { f, err := Open(p); f.Close(); return err },
		"ReadFile": func(p string) error { _, err := ReadFile(p); return err },
		"OpenFile rdwr|create": func(p string) error {
			f, _, err := OpenFile(p, os.O_RDWR|os.O_CREATE, 0o600)
			f.Close()
			return err
		},
		"Check": Check,
	}
	for _, tt := range []struct {
		name, path string
		ok         bool
	}{
		{"regular file", file, true},
		{"symlink to one", link, true},
		{"FIFO", fifo, false},
		{"directory", dir, false},
		{"character device", "/dev/null", false},
	} {
		for way, open := range ways {
			done := make(chan error, 1)
			go func() { done <- open(tt.path) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
				t.Fatalf("%s of a %s blocked", way, tt.name)
			}
			switch {
			case tt.ok && err != nil:
				t.Errorf("%s of a %s: %v", way, tt.name, err)
			case !tt.ok && tt.name == "directory" && way == "OpenFile rdwr|create":
				if err == nil {
					t.Errorf("%s of a directory succeeded", way) // EISDIR from the kernel
				}
			case !tt.ok && !errors.As(err, new(NotRegular)):
				t.Errorf("%s of a %s: %v, want NotRegular", way, tt.name, err)
			}
		}
	}
	// A missing file is fs.ErrNotExist for readers and Check; OpenFile
	// with O_CREATE makes a regular file.
	missing := filepath.Join(dir, "missing")
	if _, err := ReadFile(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile of a missing file: %v", err)
	}
	if err := Check(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check of a missing file: %v", err)
	}
	f, info, err := OpenFile(missing, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil || !info.Mode().IsRegular() || info.Mode().Perm() != 0o600 {
		t.Fatalf("OpenFile create: %v %v", info, err)
	}
	f.Close()
	if b, err := ReadFile(file); err != nil || string(b) != `{"a":1}` {
		t.Errorf("ReadFile: %q %v", b, err)
	}
}
