package localsock

import (
	"net"

	"golang.org/x/sys/unix"
)

// PeerUID returns the uid of the process at the other end of c, as the
// kernel recorded it when the connection was made (LOCAL_PEERCRED at
// level SOL_LOCAL, xnu bsd/sys/un.h; an xucred, bsd/sys/ucred.h).
func PeerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Xucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if credErr != nil {
		return -1, credErr
	}
	return int(cred.Uid), nil
}
