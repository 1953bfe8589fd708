//go:build unix

package transcript

import (
	"fmt"
	"os"
	"syscall"
)

// OpenRegular opens path for reading only if it is a regular file, and
// never blocks doing so: O_NONBLOCK makes opening a FIFO return at once
// (a plain open waits for a writer forever), and fstat on the open file,
// not a stat of the name, decides, so a file swapped in between cannot
// slip through. For a regular file O_NONBLOCK changes nothing.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := openRegular(path)
	return f, err
}

// openRegular is OpenRegular with the file's stat, taken once.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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
		return nil, nil, fmt.Errorf("%s: not a regular file (%s)", path, info.Mode().Type())
	}
	return f, info, nil
}
