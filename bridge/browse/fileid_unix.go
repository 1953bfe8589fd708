//go:build unix

package browse

import (
	"os"
	"syscall"
)

type inode struct{ dev, ino uint64 }

// fileID tells a replaced file from one written in place: gstack writes
// its state by renaming a new file over the old one.
func fileID(fi os.FileInfo) any {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return inode{uint64(st.Dev), uint64(st.Ino)}
	}
	return nil
}
