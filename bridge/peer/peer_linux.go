package peer

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
)

// lookup asks the kernel for the one socket (sock_diag); failing that
// (no netlink here, or a client on an IPv6 socket that sock_diag's IPv4
// lookup does not see), it reads both tables of /proc/net: a client may
// reach 127.0.0.1 from an IPv6 socket (as ::ffff:127.0.0.1), listed in tcp6.
func lookup(local, remote netip.AddrPort) (int, error) {
	if uid, err := diagUID(local, remote); err == nil {
		return uid, nil
	}
	return procLookup(local, remote)
}

func procLookup(local, remote netip.AddrPort) (int, error) {
	var errs []error
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		uid, found, err := procTCPUID(f, local, remote)
		f.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			continue
		}
		if found {
			return uid, nil
		}
	}
	if err := errors.Join(errs...); err != nil {
		return -1, fmt.Errorf("%w: %s → %s: %w", ErrUnknown, remote, local, err)
	}
	return -1, fmt.Errorf("%w: no socket %s → %s in /proc/net/tcp{,6}", ErrUnknown, remote, local)
}
