//go:build unix

package linefile

import (
	"io/fs"
	"syscall"
)

// linked reports whether a file still has a name in some folder.
func linked(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && st.Nlink > 0
}
