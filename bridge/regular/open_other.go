//go:build !unix

package regular

import (
	"io/fs"
	"os"
)

// openNonblock checks the name first where there is no O_NONBLOCK (and
// no FIFO to block on); OpenFile then checks the open file.
func openNonblock(path string, flag int, perm os.FileMode) (*os.File, error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() && info.Mode()&os.ModeSymlink == 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: NotRegular{Type: info.Mode().Type()}}
	}
	return os.OpenFile(path, flag, perm)
}
