// Package regular opens the files the bridge reads and keeps — agents'
// records (transcripts, rollouts), Conductor's database, the bridge's own
// state, the settings files its hooks live in — only when they are
// regular files, and without ever blocking to find out. A plain open of a
// FIFO waits for a writer forever (and of a device, for whatever the
// device does): one planted under a record's name would freeze whatever
// opened it — discovery, a session's tail, the bridge's shutdown behind
// them.
package regular

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Open opens path for reading if it is a regular file.
func Open(path string) (*os.File, error) {
	f, _, err := OpenInfo(path)
	return f, err
}

// OpenInfo is Open with the open file's stat, taken once.
func OpenInfo(path string) (*os.File, fs.FileInfo, error) {
	return OpenFile(path, os.O_RDONLY, 0)
}

// OpenFile is os.OpenFile for a file that must be regular: flag and perm
// as there (O_CREATE creates a regular file). The answer is the open
// file's own stat, never a stat of the name, so a file swapped in between
// cannot slip through.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := openNonblock(path, flag, perm)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "open", Path: path, Err: NotRegular{Type: info.Mode().Type()}}
	}
	return f, info, nil
}

// ReadFile is os.ReadFile for a regular file.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return b, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// Check reports whether path, which another library is about to open
// (SQLite, for Conductor's database and its -wal and -shm), is a regular
// file or absent (nil, or an error wrapping fs.ErrNotExist when it is
// absent). It follows a symbolic link as that open would. What is checked
// is the name, not an open file: the best that can be done for a file
// this process does not open itself.
func Check(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return &fs.PathError{Op: "open", Path: path, Err: NotRegular{Type: info.Mode().Type()}}
	}
	return nil
}

// NotRegular is the error for a file that is not a regular file.
type NotRegular struct{ Type fs.FileMode }

func (e NotRegular) Error() string { return fmt.Sprintf("not a regular file (%s)", e.Type) }
