//go:build !unix

package linefile

import (
	"io"
	"io/fs"
	"os"
)

// linked cannot tell here: the path's own stat decides (see still).
func linked(fs.FileInfo) bool { return false }

// readOnce reads at off; fewer bytes than buf holds are the end of the
// file as it stands.
func readOnce(f *os.File, buf []byte, off int64) (int, error) {
	n, err := f.ReadAt(buf, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}
