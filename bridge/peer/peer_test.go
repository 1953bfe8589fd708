package peer

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"runtime"
	"testing"
)

// pair returns both ends of a real loopback connection: the server's
// (accepted) and the client's.
func pair(t testing.TB) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return server, client
}

func TestUIDOfOwnConnection(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no socket table on " + runtime.GOOS)
	}
	server, client := pair(t)
	uid, err := UID(server.LocalAddr(), server.RemoteAddr())
	if err != nil || uid != os.Getuid() {
		t.Fatalf("UID = %d, %v; want %d", uid, err, os.Getuid())
	}
	// From the client's side the "peer" is the listening server's
	// accepted socket, also ours.
	if uid, err := UID(client.LocalAddr(), client.RemoteAddr()); err != nil || uid != os.Getuid() {
		t.Fatalf("reverse UID = %d, %v", uid, err)
	}
}

func TestUIDUnknown(t *testing.T) {
	server, client := pair(t)
	// A connection that does not exist: no row, so unknown (never uid 0).
	ghost := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	if uid, err := UID(server.LocalAddr(), ghost); !errors.Is(err, ErrUnknown) {
		t.Errorf("ghost peer: %d, %v; want ErrUnknown", uid, err)
	}
	// Not TCP at all.
	if _, err := UID(&net.UnixAddr{Name: "x"}, client.LocalAddr()); !errors.Is(err, ErrUnknown) {
		t.Errorf("unix addr: %v", err)
	}
	if _, err := UID(server.LocalAddr(), nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("nil addr: %v", err)
	}
}

func BenchmarkUID(b *testing.B) {
	server, _ := pair(b)
	// Other sockets in the table make the scan realistic: 100 more
	// connections, as a busy bridge with streams open would hold.
	for range 50 {
		pair(b)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := UID(server.LocalAddr(), server.RemoteAddr()); err != nil {
			b.Fatal(err)
		}
	}
}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
