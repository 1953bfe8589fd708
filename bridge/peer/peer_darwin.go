package peer

import (
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// lookup reads the kernel's TCP socket list, as netstat does. It lists
// every user's sockets (with their so_uid) to any user, without privilege.
func lookup(local, remote netip.AddrPort) (int, error) {
	buf, err := unix.SysctlRaw("net.inet.tcp.pcblist_n")
	if err != nil {
		return -1, fmt.Errorf("%w: sysctl net.inet.tcp.pcblist_n: %w", ErrUnknown, err)
	}
	uid, found, err := pcblistUID(buf, local, remote)
	if err != nil {
		return -1, fmt.Errorf("%w: %w", ErrUnknown, err)
	}
	if !found {
		return -1, fmt.Errorf("%w: no socket %s → %s in pcblist_n", ErrUnknown, remote, local)
	}
	return uid, nil
}
