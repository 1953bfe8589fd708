//go:build unix

package httplimit

import "syscall"

// MaxConns is the connection cap for this process's descriptor limit
// (its soft RLIMIT_NOFILE, read now: raise the limit first).
func MaxConns() int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return capFor(256)
	}
	return capFor(r.Cur)
}
