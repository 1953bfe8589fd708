package peer

import (
	"encoding/binary"
	"net/netip"
	"testing"
)

// pcbBuf builds a net.inet.tcp.pcblist_n answer as macOS lays it out.
type pcbBuf struct{ b []byte }

func newPCBBuf() *pcbBuf {
	p := &pcbBuf{}
	p.gen()
	return p
}

func (p *pcbBuf) gen() { p.record(xinpgenSize, 3, nil) } // xig_len, xig_count, …

// record appends one record of n bytes, its kind, and fill to set fields.
func (p *pcbBuf) record(n int, kind uint32, fill func([]byte)) {
	rec := make([]byte, roundup8(n))
	binary.NativeEndian.PutUint32(rec, uint32(n))
	binary.NativeEndian.PutUint32(rec[4:], kind)
	if fill != nil {
		fill(rec)
	}
	p.b = append(p.b, rec...)
}

// socket appends the group of records one TCP socket gets: its
// xinpcb_n (lend, fend: its local and foreign ends), its xsocket_n (uid),
// two xsockbuf_n, an xsockstat_n, an xtcpcb_n.
func (p *pcbBuf) socket(lend, fend netip.AddrPort, uid uint32, v6 bool) {
	p.record(104, xsoInpcb, func(r []byte) {
		binary.BigEndian.PutUint16(r[inpFport:], fend.Port())
		binary.BigEndian.PutUint16(r[inpLport:], lend.Port())
		if v6 {
			r[inpVflag] = 0x2
			f, l := fend.Addr().As16(), lend.Addr().As16()
			copy(r[inpFaddr:], f[:])
			copy(r[inpLaddr:], l[:])
		} else {
			r[inpVflag] = inpIPv4
			f, l := fend.Addr().As4(), lend.Addr().As4()
			copy(r[inpFaddr+12:], f[:])
			copy(r[inpLaddr+12:], l[:])
		}
	})
	p.record(100, xsoSocket, func(r []byte) { binary.NativeEndian.PutUint32(r[soUID:], uid) })
	p.record(36, 0x002, nil)
	p.record(36, 0x004, nil)
	p.record(164, 0x008, nil)
	p.record(245, 0x020, nil) // an odd length: the next record starts 8-aligned
}

func TestPcblistUID(t *testing.T) {
	server, client := ap("127.0.0.1:34568"), ap("127.0.0.1:51000")
	build := func(f func(p *pcbBuf)) []byte {
		p := newPCBBuf()
		p.socket(ap("127.0.0.1:34568"), ap("0.0.0.0:0"), 501, false) // the listener
		p.socket(server, client, 501, false)                         // our accepted end
		f(p)
		p.gen()
		return p.b
	}
	tests := []struct {
		name    string
		buf     []byte
		wantUID int
		found   bool
	}{
		{"client is another user", build(func(p *pcbBuf) { p.socket(client, server, 502, false) }), 502, true},
		{"client is root, then more sockets", build(func(p *pcbBuf) {
			p.socket(client, server, 0, false)
			p.socket(ap("10.0.0.2:443"), ap("10.0.0.1:5555"), 77, false)
		}), 0, true},
		{"client over IPv6 (mapped)", build(func(p *pcbBuf) {
			m := func(a netip.AddrPort) netip.AddrPort {
				return netip.AddrPortFrom(netip.AddrFrom16(a.Addr().As16()), a.Port())
			}
			p.socket(m(client), m(server), 503, true)
		}), 503, true},
		{"no client", build(func(p *pcbBuf) {}), -1, false},
		{"other port", build(func(p *pcbBuf) { p.socket(ap("127.0.0.1:51001"), server, 502, false) }), -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uid, found, err := pcblistUID(tt.buf, server, client)
			if err != nil || uid != tt.wantUID || found != tt.found {
				t.Errorf("= %d, %v, %v; want %d, %v", uid, found, err, tt.wantUID, tt.found)
			}
		})
	}
	good := build(func(p *pcbBuf) { p.socket(client, server, 502, false) })
	for name, bad := range map[string][]byte{
		"empty":     nil,
		"truncated": good[:len(good)-xinpgenSize-100],
		"short inpcb": func() []byte {
			p := newPCBBuf()
			p.record(40, xsoInpcb, nil)
			p.gen()
			return p.b
		}(),
	} {
		if _, found, err := pcblistUID(bad, server, client); err == nil || found {
			t.Errorf("%s: found=%v err=%v, want an error", name, found, err)
		}
	}
}
