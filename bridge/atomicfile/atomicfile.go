// Package atomicfile replaces a file's contents all at once: readers see
// the old file or the new one, never half of either, even if the process
// or the machine dies mid-write.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes data to path with mode perm through a temporary file in
// the same directory: written, fsynced, renamed over path, and the
// directory fsynced so the rename itself survives a crash. The directory
// is created (0700) if missing.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// Some filesystems cannot sync a directory; the data is safe either way.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
