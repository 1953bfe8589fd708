//go:build !unix

package transcript

import (
	"fmt"
	"os"
)

// OpenRegular opens path for reading only if it is a regular file. Without
// O_NONBLOCK the name is checked first; there are no FIFOs to block on here.
func OpenRegular(path string) (*os.File, error) {
	f, _, err := openRegular(path)
	return f, err
}

// openRegular is OpenRegular with the file's stat.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	if info, err := os.Lstat(path); err == nil && !info.Mode().IsRegular() && info.Mode()&os.ModeSymlink == 0 {
		return nil, nil, fmt.Errorf("%s: not a regular file (%s)", path, info.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, info, nil
}
