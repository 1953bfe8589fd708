package peer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"syscall"

	"golang.org/x/sys/unix"
)

// errNoSocket: the kernel has no socket with those ends.
var errNoSocket = errors.New("no such socket")

// diagUID asks the kernel for exactly one socket, by its four-tuple, over
// NETLINK_SOCK_DIAG (what ss uses): the client's end of our connection, its
// local end being our remote. A lookup by key, where /proc/net/tcp makes
// the kernel print every socket of the machine.
func diagUID(local, remote netip.AddrPort) (int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return -1, fmt.Errorf("netlink socket: %w", err)
	}
	defer unix.Close(fd)
	tv := unix.Timeval{Sec: 1}
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	if err := unix.Sendto(fd, diagRequest(local, remote), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return -1, fmt.Errorf("netlink send: %w", err)
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return -1, fmt.Errorf("netlink receive: %w", err)
	}
	return diagAnswer(buf[:n], local, remote)
}

// Layouts from linux/netlink.h and linux/inet_diag.h.
const (
	nlmsgHdrLen  = 16
	diagReqLen   = 56 // struct inet_diag_req_v2
	diagMsgLen   = 72 // struct inet_diag_msg
	nlmsgError   = 2  // NLMSG_ERROR
	diagMsgUID   = 64 // inet_diag_msg.idiag_uid
	diagMsgInode = 68 // inet_diag_msg.idiag_inode
	diagIDSport  = 4  // inet_diag_msg.id.idiag_sport (after family, state, timer, retrans)
)

// diagRequest asks for the socket whose local end is remote and whose
// remote end is local (SOCK_DIAG_BY_FAMILY without NLM_F_DUMP: one socket).
func diagRequest(local, remote netip.AddrPort) []byte {
	ne := binary.NativeEndian
	b := make([]byte, nlmsgHdrLen+diagReqLen)
	ne.PutUint32(b[0:], uint32(len(b)))
	ne.PutUint16(b[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(b[6:], unix.NLM_F_REQUEST)
	ne.PutUint32(b[8:], 1) // seq
	r := b[nlmsgHdrLen:]
	family, src, dst := uint8(unix.AF_INET6), remote.Addr().As16(), local.Addr().As16()
	if remote.Addr().Is4() && local.Addr().Is4() {
		family = unix.AF_INET
		s4, d4 := remote.Addr().As4(), local.Addr().As4()
		src, dst = [16]byte{}, [16]byte{}
		copy(src[:], s4[:])
		copy(dst[:], d4[:])
	}
	r[0] = family
	r[1] = unix.IPPROTO_TCP
	ne.PutUint32(r[4:], 0xffffffff) // every state
	id := r[8:]
	binary.BigEndian.PutUint16(id[0:], remote.Port())
	binary.BigEndian.PutUint16(id[2:], local.Port())
	copy(id[4:20], src[:])
	copy(id[20:36], dst[:])
	ne.PutUint32(id[40:], 0xffffffff) // INET_DIAG_NOCOOKIE
	ne.PutUint32(id[44:], 0xffffffff)
	return b
}

// diagAnswer reads the kernel's answer to diagRequest.
func diagAnswer(b []byte, local, remote netip.AddrPort) (int, error) {
	ne := binary.NativeEndian
	if len(b) < nlmsgHdrLen {
		return -1, fmt.Errorf("netlink answer of %d bytes", len(b))
	}
	n, typ := int(ne.Uint32(b)), ne.Uint16(b[4:])
	if n > len(b) || n < nlmsgHdrLen {
		return -1, fmt.Errorf("netlink answer: length %d of %d", n, len(b))
	}
	body := b[nlmsgHdrLen:n]
	switch typ {
	case nlmsgError:
		if len(body) < 4 {
			return -1, errors.New("netlink: short error")
		}
		errno := syscall.Errno(-int32(ne.Uint32(body)))
		if errno == syscall.ENOENT {
			return -1, errNoSocket
		}
		return -1, fmt.Errorf("sock_diag: %w", errno)
	case unix.SOCK_DIAG_BY_FAMILY:
	default:
		return -1, fmt.Errorf("netlink answer of type %d", typ)
	}
	if len(body) < diagMsgLen {
		return -1, fmt.Errorf("inet_diag_msg of %d bytes", len(body))
	}
	if binary.BigEndian.Uint16(body[diagIDSport:]) != remote.Port() || binary.BigEndian.Uint16(body[diagIDSport+2:]) != local.Port() {
		// The kernel looks for a listener on the asked port once no
		// connected socket has the four-tuple, and answers with it: the
		// client's socket is gone all the same.
		return -1, errNoSocket
	}
	if ne.Uint32(body[diagMsgInode:]) == 0 {
		// A time-wait mini socket: it says uid 0 whoever opened it.
		return -1, errNoSocket
	}
	return int(ne.Uint32(body[diagMsgUID:])), nil
}
