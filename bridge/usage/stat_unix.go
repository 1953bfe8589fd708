//go:build unix

package usage

import (
	"io/fs"
	"syscall"
)

// statOf is what a listing says of a file: its device and inode tell a
// file replaced under the same name.
func statOf(info fs.FileInfo) fileStat {
	st := fileStat{size: info.Size(), mtime: info.ModTime().UnixNano()}
	if sys, ok := info.Sys().(*syscall.Stat_t); ok {
		st.dev, st.ino = uint64(sys.Dev), uint64(sys.Ino)
	}
	return st
}
