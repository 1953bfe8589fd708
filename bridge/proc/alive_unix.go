//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// Alive reports whether process pid exists: signal 0 reaches it, or is
// refused because it runs as another user (EPERM), which still means it
// exists.
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
