package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/peer"
)

// Who is at the other end (README, "Security"): 127.0.0.1 is reachable by
// every account on the machine, and every credential a browser can obtain
// can be obtained by a local program too (it forges the allow-listed
// Origin). So a connection is served only when the process at its other
// end belongs to the user running the bridge. The exceptions are the
// secrets kept in 0600 files — the API token and the hook secret — since
// whoever can read those is that user, and GET /health, which tells
// nothing. Where the peer's uid cannot be found, the connection is
// refused just the same: fail closed.

type peerKey struct{}

// connPeer is one connection's peer, worked out at most once: when the
// listener accepted it (httplimit's ListenOwn, which keeps the connection
// cap the user's own), else by the first request that needs it.
type connPeer struct {
	local, remote net.Addr
	once          sync.Once
	uid           int
	err           error
	// foreign: the listener found the connection is another user's (or
	// could not tell): every answer on it closes it.
	foreign bool
	// socket: a connection to the bridge's socket file, which only the
	// user can reach and whose listener accepts the user's connections
	// only (bridge/localsock). No browser can dial it.
	socket bool
	// raw is the connection for a raw write (streams written on the
	// publisher's goroutine), nil if it has none.
	raw syscall.RawConn
}

// ownedConn is a connection whose peer the listener looked up.
type ownedConn interface {
	PeerUID() (int, error)
	Foreign() bool
}

// ConnContext is the http.Server hook that remembers each connection's
// ends, so its peer is looked up once per connection, not per request.
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	p := &connPeer{local: c.LocalAddr(), remote: c.RemoteAddr(), socket: c.LocalAddr().Network() == "unix", raw: rawConn(c)}
	if o, ok := c.(ownedConn); ok {
		p.once.Do(func() { p.uid, p.err = o.PeerUID() })
		p.foreign = o.Foreign()
	}
	return context.WithValue(ctx, peerKey{}, p)
}

// rawConn is c's descriptor for a raw write, under httplimit's wrapper
// (nothing else: a TLS connection's is not one to write to).
func rawConn(c net.Conn) syscall.RawConn {
	if u, ok := c.(interface{ Unlimited() net.Conn }); ok {
		c = u.Unlimited()
	}
	switch c := c.(type) {
	case *net.TCPConn:
		raw, _ := c.SyscallConn()
		return raw
	case *net.UnixConn:
		raw, _ := c.SyscallConn()
		return raw
	}
	return nil
}

// streamConn is the connection under r for a stream's raw writes.
func streamConn(r *http.Request) syscall.RawConn {
	p, _ := r.Context().Value(peerKey{}).(*connPeer)
	if p == nil || r.TLS != nil {
		return nil
	}
	return p.raw
}

// ConnOwner finds the uid at an accepted connection's other end, for
// httplimit's ListenOwn.
func (s *Server) ConnOwner(c net.Conn) (int, error) {
	return s.peerLookup()(c.LocalAddr(), c.RemoteAddr())
}

func (s *Server) peerLookup() func(local, remote net.Addr) (int, error) {
	if s.PeerUID != nil {
		return s.PeerUID
	}
	return peer.UID
}

// foreignConn reports whether r came on a connection the listener found
// to be another user's.
func foreignConn(r *http.Request) bool {
	p, _ := r.Context().Value(peerKey{}).(*connPeer)
	return p != nil && p.foreign
}

// viaSocket reports whether r came through the bridge's socket file.
func viaSocket(r *http.Request) bool {
	p, _ := r.Context().Value(peerKey{}).(*connPeer)
	return p != nil && p.socket
}

// peerUID returns the uid at the other end of r's connection.
func (s *Server) peerUID(r *http.Request) (int, error) {
	lookup := s.peerLookup()
	p, _ := r.Context().Value(peerKey{}).(*connPeer)
	if p == nil {
		// Served without ConnContext: still checked, once per request.
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		remote, err := net.ResolveTCPAddr("tcp", r.RemoteAddr)
		if local == nil || err != nil {
			return -1, errors.New("peer uid unknown: no connection addresses")
		}
		return lookup(local, remote)
	}
	p.once.Do(func() { p.uid, p.err = lookup(p.local, p.remote) })
	return p.uid, p.err
}

// holdsFileSecret reports whether r carries a secret that lives in a 0600
// file: the API token, or on a hook call the hook secret.
func (s *Server) holdsFileSecret(r *http.Request) bool {
	b := auth.Bearer(r)
	if b == "" {
		return false
	}
	if s.Token != nil && s.Token.Equal(b) {
		return true
	}
	return strings.HasPrefix(r.URL.Path, "/hook/") && s.HookSecret != nil && s.HookSecret.Equal(b)
}

// peerAllowed reports whether r may go on, answering 403 itself when not.
func (s *Server) peerAllowed(w http.ResponseWriter, r *http.Request) bool {
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path == "/health" {
		return true
	}
	if s.holdsFileSecret(r) || viaSocket(r) {
		return true
	}
	uid, err := s.peerUID(r)
	if err != nil || uid != os.Getuid() {
		// Nothing more for it on this connection: another account must
		// not hold connections open after its 403.
		w.Header().Set("Connection", "close")
	}
	switch {
	case err != nil:
		s.Log.Debug().Err(err).Msg("peer unknown")
		s.refuse(w, r, "forbidden: cannot tell which user this connection comes from (the API token still works)")
		return false
	case uid != os.Getuid():
		s.Log.Debug().Int("peer_uid", uid).Msg("peer is another user")
		s.refuse(w, r, "forbidden: this connection comes from another user of this machine")
		return false
	}
	return true
}
