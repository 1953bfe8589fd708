//go:build unix

package regular

import (
	"os"
	"syscall"
)

// openNonblock opens with O_NONBLOCK, which makes opening a FIFO return
// at once; for a regular file it changes nothing.
func openNonblock(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
}
