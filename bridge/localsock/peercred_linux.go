package localsock

import "golang.org/x/sys/unix"

// peerCred reads the uid the kernel recorded for the other end of the
// socket fd when the connection was made (SO_PEERCRED, unix(7)).
func peerCred(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
