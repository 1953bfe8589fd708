//go:build !unix

package httplimit

// FileLimit is unknown where there is no RLIMIT_NOFILE.
func FileLimit() (uint64, bool) { return 0, false }

// MaxConns is the connection cap where there is no descriptor limit to read.
func MaxConns() int { return capFor(2048) }
