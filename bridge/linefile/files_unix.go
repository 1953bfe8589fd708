//go:build unix

package linefile

import (
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// linked reports whether a file still has a name in some folder.
func linked(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 0
}

// readOnce reads at off with a single pread: fewer bytes than buf holds
// are the end of the file as it stands. (File.ReadAt reads on until buf
// is full, a second system call to find that end.)
func readOnce(f *os.File, buf []byte, off int64) (int, error) {
	for {
		n, err := syscall.Pread(int(f.Fd()), buf, off)
		runtime.KeepAlive(f)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &fs.PathError{Op: "read", Path: f.Name(), Err: err}
		}
		return n, nil
	}
}
