package peer

import (
	"net"
	"net/netip"
	"os"
	"slices"
	"testing"
)

// TestListeningFindsOwnSockets: this process's own listeners, IPv4 and
// IPv6, are listed; a connected socket is not.
func TestListeningFindsOwnSockets(t *testing.T) {
	var want []netip.AddrPort
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			if addr == "[::1]:0" {
				continue // no IPv6 here
			}
			t.Fatal(err)
		}
		defer ln.Close()
		want = append(want, ln.Addr().(*net.TCPAddr).AddrPort())
	}
	c, err := net.Dial("tcp", want[0].String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got, err := Listening(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		w = netip.AddrPortFrom(w.Addr().Unmap(), w.Port())
		if !slices.Contains(got, w) {
			t.Errorf("%v not among %v", w, got)
		}
	}
	local := c.LocalAddr().(*net.TCPAddr).AddrPort()
	if slices.Contains(got, netip.AddrPortFrom(local.Addr().Unmap(), local.Port())) {
		t.Errorf("the connected end %v is listed", local)
	}
}
