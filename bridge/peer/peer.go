// Package peer finds which OS user owns the other end of a loopback TCP
// connection. The bridge listens on 127.0.0.1, which every account on the
// machine can reach; a credential a browser can obtain (the extension
// token is handed to whoever shows an allow-listed Origin) proves nothing
// about who asks, but the peer's uid does.
//
// TCP has no SO_PEERCRED (that is for Unix sockets, which a browser cannot
// dial), so the uid comes from the kernel's socket table: the row whose
// local end is our connection's remote end, and whose remote end is our
// local end, is the client's socket, and the table says who opened it.
//   - Linux: NETLINK_SOCK_DIAG, asked for that one socket by its ends
//     (what ss does). A socket it says is gone is unknown at once; only
//     where netlink fails are /proc/net/tcp and /proc/net/tcp6 (the uid
//     column), which list every socket, read instead.
//   - macOS: sysctl net.inet.tcp.pcblist_n (xsocket_n.so_uid), read with
//     golang.org/x/sys/unix, no cgo.
//   - Elsewhere the uid is unknown, and callers must fail closed.
package peer

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"runtime"
)

// Supported reports whether this platform has a socket table UID reads.
const Supported = runtime.GOOS == "linux" || runtime.GOOS == "darwin"

// ErrUnknown is returned when the peer's uid cannot be determined: the
// platform has no socket table we can read, or the client's socket is not
// in it (it already closed, or it is not on this machine).
var ErrUnknown = errors.New("peer uid unknown")

// UID returns the uid owning the other end of a TCP connection whose ends,
// as the bridge sees them, are local (ours) and remote (the client's).
func UID(local, remote net.Addr) (int, error) {
	l, err := addrPort(local)
	if err != nil {
		return -1, err
	}
	r, err := addrPort(remote)
	if err != nil {
		return -1, err
	}
	return lookup(l, r)
}

func addrPort(a net.Addr) (netip.AddrPort, error) {
	t, ok := a.(*net.TCPAddr)
	if !ok || t == nil {
		return netip.AddrPort{}, fmt.Errorf("%w: %v is not a TCP address", ErrUnknown, a)
	}
	ap := t.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

// sameEnd reports whether an end read from the socket table is a.
func sameEnd(a netip.AddrPort, addr netip.Addr, port uint16) bool {
	return a.Port() == port && a.Addr() == addr.Unmap()
}
