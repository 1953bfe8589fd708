//go:build !unix

package httplimit

// MaxConns is the connection cap where there is no descriptor limit to read.
func MaxConns() int { return capFor(2048) }
