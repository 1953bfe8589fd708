package peer

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// macOS's net.inet.tcp.pcblist_n (bsd/netinet/in_pcblist.c, the format
// netstat and lsof read): an xinpgen header, then for each socket a group
// of records — xinpcb_n, xsocket_n, two xsockbuf_n, xsockstat_n, xtcpcb_n
// — each starting with its length and kind and placed at an offset
// rounded up to 8, then a closing xinpgen. Integers are in host byte
// order, ports in network byte order.
//
// xnu declares these structs under #pragma pack(4) (bsd/netinet/in_pcb.h,
// bsd/sys/socketvar.h): their 64-bit fields are only 4-aligned, so
// inp_vflag is at 44, not 48, and so_uid at 64 (68 is so_last_pid). The
// offsets below are checked against a C compiler's layout of those
// declarations (testdata/pcblist_n.c, TestPcblistLayoutMatchesXNU).
const (
	xinpgenSize = 24 // xig_len, xig_count, xig_gen, xig_sogen

	xsoSocket = 0x001 // XSO_SOCKET: struct xsocket_n
	xsoInpcb  = 0x010 // XSO_INPCB: struct xinpcb_n

	// struct xinpcb_n
	inpFport   = 16 // u_short inp_fport
	inpLport   = 18 // u_short inp_lport
	inpVflag   = 44 // u_char inp_vflag
	inpFaddr   = 48 // union { in_addr_4in6; in6_addr } inp_dependfaddr
	inpLaddr   = 64 // the same, inp_dependladdr
	inpMinSize = inpLaddr + 16
	inpIPv4    = 0x1 // INP_IPV4: the address is the in_addr_4in6's last 4 bytes

	// struct xsocket_n
	soUID     = 64 // uid_t so_uid
	soMinSize = soUID + 4
)

// pcblistUID finds, in a pcblist_n buffer, the client's socket of our
// connection (local, remote as the bridge sees them) and returns its
// so_uid.
func pcblistUID(buf []byte, local, remote netip.AddrPort) (uid int, found bool, err error) {
	ne := binary.NativeEndian
	if len(buf) < xinpgenSize {
		return -1, false, fmt.Errorf("pcblist_n: %d bytes, shorter than its header", len(buf))
	}
	var (
		have  uint32 // kinds seen in the current group
		match bool   // the group's xinpcb_n is the client's end
		sock  = -1   // the group's so_uid
	)
	done := func() bool { return have&(xsoInpcb|xsoSocket) == xsoInpcb|xsoSocket && match && sock >= 0 }
	for p := roundup8(int(ne.Uint32(buf))); p+8 <= len(buf); {
		n, kind := int(ne.Uint32(buf[p:])), ne.Uint32(buf[p+4:])
		if n <= xinpgenSize { // the closing xinpgen (netstat stops the same way)
			break
		}
		if p+n > len(buf) {
			return -1, false, fmt.Errorf("pcblist_n: record of %d bytes at %d runs past the end (%d)", n, p, len(buf))
		}
		rec := buf[p : p+n]
		if have&kind != 0 { // a kind seen twice: a new socket's group began
			if done() {
				return sock, true, nil
			}
			have, match, sock = 0, false, -1
		}
		have |= kind
		switch kind {
		case xsoInpcb:
			if n < inpMinSize {
				return -1, false, fmt.Errorf("pcblist_n: xinpcb_n of %d bytes", n)
			}
			match = inpIs(rec, local, remote)
		case xsoSocket:
			if n < soMinSize {
				return -1, false, fmt.Errorf("pcblist_n: xsocket_n of %d bytes", n)
			}
			sock = int(ne.Uint32(rec[soUID:]))
		}
		p += roundup8(n)
	}
	if done() {
		return sock, true, nil
	}
	return -1, false, nil
}

// inpIs reports whether the xinpcb_n rec is the client's socket: its local
// end is our remote, its foreign end our local.
func inpIs(rec []byte, local, remote netip.AddrPort) bool {
	fport := binary.BigEndian.Uint16(rec[inpFport:])
	lport := binary.BigEndian.Uint16(rec[inpLport:])
	var faddr, laddr netip.Addr
	if rec[inpVflag]&inpIPv4 != 0 {
		faddr = netip.AddrFrom4([4]byte(rec[inpFaddr+12 : inpFaddr+16]))
		laddr = netip.AddrFrom4([4]byte(rec[inpLaddr+12 : inpLaddr+16]))
	} else {
		faddr = netip.AddrFrom16([16]byte(rec[inpFaddr : inpFaddr+16]))
		laddr = netip.AddrFrom16([16]byte(rec[inpLaddr : inpLaddr+16]))
	}
	return sameEnd(remote, laddr, lport) && sameEnd(local, faddr, fport)
}

func roundup8(n int) int { return (n + 7) &^ 7 }
