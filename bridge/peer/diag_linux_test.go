package peer

import (
	"errors"
	"os"
	"testing"
)

// sock_diag and /proc/net/tcp agree on a real connection, both ways round.
func TestDiagAgreesWithProc(t *testing.T) {
	server, client := pair(t)
	for name, ends := range map[string][2]string{
		"server side": {server.LocalAddr().String(), server.RemoteAddr().String()},
		"client side": {client.LocalAddr().String(), client.RemoteAddr().String()},
	} {
		l, r := ap(ends[0]), ap(ends[1])
		d, err := diagUID(l, r)
		if err != nil {
			t.Fatalf("%s: sock_diag: %v", name, err)
		}
		p, err := procLookup(l, r)
		if err != nil || d != p || d != os.Getuid() {
			t.Errorf("%s: sock_diag %d, /proc %d (%v), want %d", name, d, p, err, os.Getuid())
		}
	}
	// No such socket: ENOENT, never a uid.
	if uid, err := diagUID(ap(server.LocalAddr().String()), ap("127.0.0.1:1")); !errors.Is(err, errNoSocket) {
		t.Errorf("ghost: %d, %v", uid, err)
	}
}

func BenchmarkProcLookup(b *testing.B) {
	server, _ := pair(b)
	for range 50 {
		pair(b)
	}
	l, r := ap(server.LocalAddr().String()), ap(server.RemoteAddr().String())
	b.ResetTimer()
	for b.Loop() {
		if _, err := procLookup(l, r); err != nil {
			b.Fatal(err)
		}
	}
}
