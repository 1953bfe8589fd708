package peer

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
)

// procTCPUID scans a /proc/net/tcp or /proc/net/tcp6 table for the client's
// socket of our connection (local, remote as the bridge sees them): the
// row whose local address is remote and whose remote address is local.
//
// A row with inode 0 is a time-wait mini socket, which reports uid 0
// whoever opened it: it does not count, so a client that closed its end
// cannot pass for root.
func procTCPUID(r io.Reader, local, remote netip.AddrPort) (uid int, found bool, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64*1024)
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		f := strings.Fields(sc.Text())
		// sl local rem st tx:rx tr:when retrnsmt uid timeout inode …
		if len(f) < 10 {
			continue
		}
		l, lport, err1 := procAddr(f[1])
		rm, rport, err2 := procAddr(f[2])
		if err1 != nil || err2 != nil {
			return -1, false, fmt.Errorf("parse socket table row %q: %v %v", sc.Text(), err1, err2)
		}
		if !sameEnd(remote, l, lport) || !sameEnd(local, rm, rport) {
			continue
		}
		if f[9] == "0" {
			continue
		}
		u, err := strconv.Atoi(f[7])
		if err != nil {
			return -1, false, fmt.Errorf("parse uid %q: %w", f[7], err)
		}
		return u, true, nil
	}
	if err := sc.Err(); err != nil {
		return -1, false, fmt.Errorf("read socket table: %w", err)
	}
	return -1, false, nil
}

// procAddr parses "0100007F:07E8" (IPv4) or 32 hex digits and a port
// (IPv6). The kernel prints each 32-bit word of the address in host byte
// order, the port as a plain number.
func procAddr(s string) (netip.Addr, uint16, error) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.Addr{}, 0, fmt.Errorf("no port in %q", s)
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.Addr{}, 0, fmt.Errorf("port in %q: %w", s, err)
	}
	raw, err := hex.DecodeString(h)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.Addr{}, 0, fmt.Errorf("address in %q", s)
	}
	var b [16]byte
	for i := 0; i < len(raw); i += 4 {
		binary.BigEndian.PutUint32(b[i:], binary.NativeEndian.Uint32(raw[i:]))
	}
	if len(raw) == 4 {
		return netip.AddrFrom4([4]byte(b[:4])), uint16(port), nil
	}
	return netip.AddrFrom16(b).Unmap(), uint16(port), nil
}
