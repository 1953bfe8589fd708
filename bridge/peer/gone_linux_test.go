package peer

import (
	"errors"
	"net"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// gone returns the ends of a connection, as the server saw them, whose
// client has reset it: its socket is gone from the kernel (a reset leaves
// no time-wait), as in a flood of connections reset before the bridge
// looks them up.
func gone(t testing.TB) (local, remote net.Addr) {
	t.Helper()
	server, client := pair(t)
	if err := client.(*net.TCPConn).SetLinger(0); err != nil {
		t.Fatal(err)
	}
	client.Close()
	return server.LocalAddr(), server.RemoteAddr()
}

// A socket that is gone is refused on the kernel's word (sock_diag's
// ENOENT), never by reading every socket of /proc/net/tcp and tcp6 (issue
// 24, finding 3: a reset flood cost 64 s of CPU that way).
func TestGoneSocketIsRefusedAtOnce(t *testing.T) {
	local, remote := gone(t)
	uid, err := UID(local, remote)
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("gone socket: uid %d, %v; want ErrUnknown", uid, err)
	}
	if !errors.Is(err, errNoSocket) {
		t.Errorf("gone socket refused by %v; want sock_diag's answer (no socket), without reading /proc/net", err)
	}
}

// The one client sock_diag's IPv4 lookup must still find: an IPv6 socket
// connected to 127.0.0.1 as ::ffff:127.0.0.1 (what the /proc fallback
// was for). The kernel looks IPv4 four-tuples up in the table both share.
func TestMappedIPv6ClientFoundBySockDiag(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no IPv6 sockets here: %v", err)
	}
	sa := &unix.SockaddrInet6{Port: ln.Addr().(*net.TCPAddr).Port}
	copy(sa.Addr[:], net.ParseIP("::ffff:127.0.0.1").To16())
	if err := unix.Connect(fd, sa); err != nil {
		unix.Close(fd)
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if got, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_DOMAIN); err != nil || got != unix.AF_INET6 {
		t.Fatalf("client socket domain %d, %v; want AF_INET6", got, err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	l, r := ap(server.LocalAddr().String()), ap(server.RemoteAddr().String())
	if uid, err := diagUID(l, r); err != nil || uid != os.Getuid() {
		t.Fatalf("sock_diag for a mapped IPv6 client: %d, %v; want %d", uid, err, os.Getuid())
	}
	if uid, err := UID(server.LocalAddr(), server.RemoteAddr()); err != nil || uid != os.Getuid() {
		t.Fatalf("UID for a mapped IPv6 client: %d, %v", uid, err)
	}
}

// BenchmarkGoneSocket is what one reset connection costs the bridge with
// 1,000 other connections open (2,000 sockets in the table).
func BenchmarkGoneSocket(b *testing.B) {
	for range 1000 {
		pair(b)
	}
	local, remote := gone(b)
	for b.Loop() {
		if _, err := UID(local, remote); err == nil {
			b.Fatal("a gone socket got a uid")
		}
	}
}

// When no connected socket has the four-tuple, the kernel's one-socket
// lookup goes on to a listener on the asked port and answers with it (a
// listener on the client's port — another account can open one). That
// answer says the client's socket is gone too: refused at once, never by
// reading /proc.
func TestListenerAnswerIsNoSocket(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	server, _ := pair(t)
	uid, err := UID(server.LocalAddr(), ln.Addr())
	if !errors.Is(err, errNoSocket) || !errors.Is(err, ErrUnknown) {
		t.Errorf("a listener on the client's port: uid %d, %v; want sock_diag's no socket", uid, err)
	}
}
