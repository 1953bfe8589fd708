package peer

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"path/filepath"
	"testing"

	"conductorbridge/testkit/cctest"
)

// The oracle for pcblist.go is testdata/pcblist_n.c: xnu's declarations of
// the pcblist_n records, transcribed with their #pragma pack(4), laid out
// by the machine's C compiler, and a writer of pcblist_n answers that
// follows the kernel's get_pcblist_n. Nothing below builds a record from
// the Go constants under test.

func pcblistOracle(t *testing.T) string {
	t.Helper()
	return cctest.Build(t, filepath.Join("testdata", "pcblist_n.c"))
}

func TestPcblistLayoutMatchesXNU(t *testing.T) {
	layout := cctest.Layout(t, pcblistOracle(t))
	cctest.Compare(t, layout, map[string]int{
		"sizeof(xinpgen)":                                   xinpgenSize,
		"xinpcb_n.inp_fport":                                inpFport,
		"xinpcb_n.inp_lport":                                inpLport,
		"xinpcb_n.inp_vflag":                                inpVflag,
		"xinpcb_n.inp_dependfaddr":                          inpFaddr,
		"xinpcb_n.inp_dependladdr":                          inpLaddr,
		"xinpcb_n.inp_dependfaddr.inp46_foreign.ia46_addr4": inpFaddr + 12,
		"xinpcb_n.inp_dependladdr.inp46_local.ia46_addr4":   inpLaddr + 12,
		"xsocket_n.so_uid":                                  soUID,
		"XSO_SOCKET":                                        xsoSocket,
		"XSO_INPCB":                                         xsoInpcb,
		"INP_IPV4":                                          inpIPv4,
	})
	// The parser refuses records too short for what it reads: a real one
	// must never be refused.
	if n := layout["sizeof(xinpcb_n)"]; n < inpMinSize {
		t.Errorf("xinpcb_n is %d bytes, the parser wants at least %d", n, inpMinSize)
	}
	if n := layout["sizeof(xsocket_n)"]; n < soMinSize {
		t.Errorf("xsocket_n is %d bytes, the parser wants at least %d", n, soMinSize)
	}
}

// sock is one TCP socket for the oracle: its local and foreign ends, and
// the uid and pid the kernel records for it.
type sock struct {
	local, foreign netip.AddrPort
	uid, pid       int
}

func (s sock) arg() string {
	addr := func(a netip.Addr) string {
		if a.Is4() {
			b := a.As4()
			return hex.EncodeToString(b[:])
		}
		b := a.As16()
		return hex.EncodeToString(b[:])
	}
	family := 6
	if s.local.Addr().Is4() {
		family = 4
	}
	return fmt.Sprintf("%d,%s,%d,%s,%d,%d,%d", family, addr(s.local.Addr()), s.local.Port(),
		addr(s.foreign.Addr()), s.foreign.Port(), s.uid, s.pid)
}

// pcblist has the oracle write the kernel's answer listing socks.
func pcblist(t *testing.T, exe string, socks ...sock) []byte {
	t.Helper()
	args := []string{"buffer"}
	for _, s := range socks {
		args = append(args, s.arg())
	}
	return cctest.Run(t, exe, args...)
}

func TestPcblistUIDReadsXNUBuffers(t *testing.T) {
	exe := pcblistOracle(t)
	for _, fam := range []struct {
		name                   string
		server, client, any    netip.AddrPort
		elsewhere, elsewhereTo netip.AddrPort
	}{
		{"IPv4", ap("127.0.0.1:34568"), ap("127.0.0.1:51000"), ap("0.0.0.0:0"), ap("10.0.0.2:443"), ap("10.0.0.1:5555")},
		{"IPv6 ::1", ap("[::1]:34568"), ap("[::1]:51000"), ap("[::]:0"), ap("[fd00::2]:443"), ap("[fd00::1]:5555")},
	} {
		// The bridge runs as 501 (pid 700). Each uid differs from every
		// pid, so a parser reading so_last_pid for so_uid cannot pass.
		listener := sock{fam.server, fam.any, 501, 700}
		ours := sock{fam.server, fam.client, 501, 700}
		other := sock{fam.elsewhere, fam.elsewhereTo, 77, 9001}
		tests := []struct {
			name    string
			socks   []sock
			wantUID int
			found   bool
		}{
			{"client is another user", []sock{listener, ours, {fam.client, fam.server, 502, 4242}}, 502, true},
			{"client is root, then more sockets", []sock{listener, ours, {fam.client, fam.server, 0, 4243}, other}, 0, true},
			{"client listed first", []sock{{fam.client, fam.server, 503, 4244}, other, listener, ours}, 503, true},
			{"no client", []sock{listener, ours, other}, -1, false},
			{"a client on another port", []sock{listener, ours, {netip.AddrPortFrom(fam.client.Addr(), 51001), fam.server, 502, 4245}}, -1, false},
		}
		for _, tt := range tests {
			t.Run(fam.name+"/"+tt.name, func(t *testing.T) {
				uid, found, err := pcblistUID(pcblist(t, exe, tt.socks...), fam.server, fam.client)
				if err != nil || uid != tt.wantUID || found != tt.found {
					t.Errorf("= %d, %v, %v; want %d, %v", uid, found, err, tt.wantUID, tt.found)
				}
			})
		}
		// From the client's side (the native host checking whose listener
		// it reached): the server's accepted end, here another account's
		// (a squatter, 666), not the client's own socket.
		t.Run(fam.name+"/the server's end, from the client", func(t *testing.T) {
			buf := pcblist(t, exe, sock{fam.server, fam.any, 666, 9666}, sock{fam.server, fam.client, 666, 9666},
				sock{fam.client, fam.server, 501, 4242}, other)
			uid, found, err := pcblistUID(buf, fam.client, fam.server)
			if err != nil || uid != 666 || !found {
				t.Errorf("= %d, %v, %v; want 666, true", uid, found, err)
			}
		})
	}
}

func TestPcblistUIDRefusesBrokenBuffers(t *testing.T) {
	exe := pcblistOracle(t)
	server, client := ap("127.0.0.1:34568"), ap("127.0.0.1:51000")
	good := pcblist(t, exe, sock{server, client, 501, 700}, sock{client, server, 502, 4242})
	shortInpcb := append([]byte(nil), good...)
	// The first record (after the 24-byte xinpgen) says it is 40 bytes.
	binary.NativeEndian.PutUint32(shortInpcb[24:], 40)
	for name, bad := range map[string][]byte{
		"empty":       nil,
		"truncated":   good[:len(good)-xinpgenSize-100],
		"short inpcb": shortInpcb,
	} {
		if _, found, err := pcblistUID(bad, server, client); err == nil || found {
			t.Errorf("%s: found=%v err=%v, want an error", name, found, err)
		}
	}
}
