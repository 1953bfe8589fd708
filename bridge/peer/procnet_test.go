package peer

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// procHex writes an address the way the kernel does in /proc/net/tcp{,6}:
// each 32-bit word in host byte order.
func procHex(a netip.AddrPort) string {
	raw := a.Addr().AsSlice()
	out := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(out[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	return fmt.Sprintf("%s:%04X", strings.ToUpper(hex.EncodeToString(out)), a.Port())
}

func procRow(n int, local, remote netip.AddrPort, state string, uid, inode int) string {
	return fmt.Sprintf("%4d: %s %s %s 00000000:00000000 00:00000000 00000000 %5d        0 %d 1 0000000000000000 20 4 30 10 -1\n",
		n, procHex(local), procHex(remote), state, uid, inode)
}

const procHeader = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

func TestProcTCPUID(t *testing.T) {
	server, client := ap("127.0.0.1:34568"), ap("127.0.0.1:51000")
	mapped := func(a netip.AddrPort) netip.AddrPort {
		return netip.AddrPortFrom(netip.AddrFrom16(a.Addr().As16()), a.Port())
	}
	listen := procRow(0, ap("127.0.0.1:34568"), ap("0.0.0.0:0"), "0A", 501, 100)
	accepted := procRow(1, server, client, "01", 501, 101) // our own end: never the answer
	tests := []struct {
		name    string
		table   string
		wantUID int
		found   bool
	}{
		{"client is another user", listen + accepted + procRow(2, client, server, "01", 502, 102), 502, true},
		{"client is root", listen + procRow(2, client, server, "01", 0, 102) + accepted, 0, true},
		{"no client row", listen + accepted, -1, false},
		{"other port", listen + procRow(2, ap("127.0.0.1:51001"), server, "01", 502, 103), -1, false},
		{"other address", procRow(2, ap("127.0.0.2:51000"), server, "01", 502, 103), -1, false},
		// A time-wait mini socket says uid 0 whoever made it.
		{"time-wait says nothing", procRow(2, client, server, "06", 0, 0), -1, false},
		{"v4-mapped in tcp6", procRow(2, mapped(client), mapped(server), "01", 503, 104), 503, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uid, found, err := procTCPUID(strings.NewReader(procHeader+tt.table), server, client)
			if err != nil || uid != tt.wantUID || found != tt.found {
				t.Errorf("= %d, %v, %v; want %d, %v", uid, found, err, tt.wantUID, tt.found)
			}
		})
	}
	if _, _, err := procTCPUID(strings.NewReader(procHeader+"  0: ZZZ:1 0100007F:07E8 01 0 0 0 501 0 1\n"), server, client); err == nil {
		t.Error("a garbled row is not an error")
	}
}

func TestProcAddr(t *testing.T) {
	for in, want := range map[string]string{
		procHex(ap("127.0.0.1:34568")):   "127.0.0.1:34568",
		procHex(ap("[::1]:80")):          "[::1]:80",
		procHex(ap("[fe80::1:2]:65535")): "[fe80::1:2]:65535",
	} {
		a, p, err := procAddr(in)
		if got := netip.AddrPortFrom(a, p).String(); err != nil || got != want {
			t.Errorf("procAddr(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"0100007F", "0100007F:XYZ", "01007F:0050", "0100007F:10000"} {
		if _, _, err := procAddr(bad); err == nil {
			t.Errorf("procAddr(%q) accepted", bad)
		}
	}
}
