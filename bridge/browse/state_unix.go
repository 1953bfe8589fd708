//go:build unix

package browse

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// readStateFile opens the state file through an os.Root at root, which
// follows a symlink only while it stays inside root, without blocking and
// without becoming a controlling terminal, and reads it once fstat says it
// is a regular file of ours that no one else may write.
func readStateFile(root string) ([]byte, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoState
		}
		return nil, fmt.Errorf("%w: open workspace %s: %v", errUnsafe, root, err)
	}
	defer r.Close()
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoState
		}
		return nil, fmt.Errorf("%w: %v", errUnsafe, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUnsafe, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%w: not a regular file (%v)", errUnsafe, fi.Mode().Type())
	case !ok || int(st.Uid) != os.Geteuid():
		return nil, fmt.Errorf("%w: owned by another user", errUnsafe)
	case fi.Mode().Perm()&0o022 != 0:
		return nil, fmt.Errorf("%w: writable by others (%v)", errUnsafe, fi.Mode().Perm())
	case fi.Size() > maxStateBytes:
		return nil, fmt.Errorf("%w: %d bytes", errPartial, fi.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errPartial, err)
	}
	if len(b) > maxStateBytes {
		return nil, fmt.Errorf("%w: over %d bytes", errPartial, maxStateBytes)
	}
	return b, nil
}
