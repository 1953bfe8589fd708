package localsock

import "golang.org/x/sys/unix"

// peerCred reads the uid the kernel recorded for the other end of the
// socket fd when the connection was made (LOCAL_PEERCRED at level
// SOL_LOCAL, xnu bsd/sys/un.h; an xucred, bsd/sys/ucred.h).
func peerCred(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
