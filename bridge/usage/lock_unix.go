//go:build unix

package usage

import (
	"os"
	"syscall"
)

// tryLock takes f's exclusive lock if no one holds it (closing f lets it
// go): runs appending to one cache file take turns.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
