package peer

import (
	"context"
	"errors"
	"net"
	"time"
)

// ListenerUID returns the uid owning the listening socket at the other end
// of c, a connection this process made: the row of the kernel's socket
// table whose local end is c's remote. An accepted socket carries its
// listener's owner (Linux's sk_clone_lock copies sk_uid; xnu's sonewconn
// copies so_cred).
//
// Linux keeps the server's end as a request socket (inode 0, which the
// look-up does not trust) until it has processed the client's last
// handshake ACK, which on loopback can come a moment after connect
// returned: a socket not found yet is looked for again, briefly (23 of
// 5,000 connects in the native host's BenchmarkConnect, on a shared 2-core
// machine, looked once more, 1 ms later, and found it). lookup replaces
// the kernel's table in tests (nil: the table).
func ListenerUID(ctx context.Context, c net.Conn, lookup func(net.Conn) (int, error)) (int, error) {
	if lookup == nil {
		lookup = func(c net.Conn) (int, error) { return UID(c.LocalAddr(), c.RemoteAddr()) }
	}
	for wait := time.Millisecond; ; wait *= 2 {
		uid, err := lookup(c)
		if err == nil || !errors.Is(err, ErrUnknown) || wait > 128*time.Millisecond {
			return uid, err
		}
		select {
		case <-ctx.Done():
			return uid, err
		case <-time.After(wait):
		}
	}
}
