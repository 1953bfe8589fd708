package peer

import (
	"errors"
	"fmt"
	"net/netip"
	"os"
)

// lookup asks the kernel for the one socket (sock_diag). Its "no such
// socket" is final: the lookup is by four-tuple in the table IPv4 and
// IPv4-mapped IPv6 sockets share (TestMappedIPv6ClientFoundBySockDiag), so
// the client's socket is gone (reset, closed) and the connection is
// refused at once. Reading every socket of /proc/net/tcp and tcp6 for it
// instead is what a flood of connections reset before their lookup would
// make the bridge do (17 ms a connection with 2,000 sockets open). Only
// when netlink itself fails (no sock_diag in this kernel or sandbox) are
// the /proc tables read.
func lookup(local, remote netip.AddrPort) (int, error) {
	uid, err := diagUID(local, remote)
	switch {
	case err == nil:
		return uid, nil
	case errors.Is(err, errNoSocket):
		return -1, fmt.Errorf("%w: %s → %s: %w", ErrUnknown, remote, local, err)
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
