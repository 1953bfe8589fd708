//go:build unix

package httplimit

import "syscall"

// FileLimit is how many descriptors this process may hold now: its soft
// RLIMIT_NOFILE (read now: raise the limit first), and on macOS no more
// than kern.maxfilesperproc, which the kernel enforces as well
// (perProcess).
func FileLimit() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, false
	}
	return perProcess(uint64(r.Cur)), true
}

// MaxConns is the connection cap for this process's descriptor limit.
func MaxConns() int {
	limit, ok := FileLimit()
	if !ok {
		return capFor(256)
	}
	return capFor(limit)
}
