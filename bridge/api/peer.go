package api

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

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

// connPeer is one connection's peer, worked out at most once: the first
// request that needs it looks it up (a CLI call with the token, a hook or
// /health never does).
type connPeer struct {
	local, remote net.Addr
	once          sync.Once
	uid           int
	err           error
}

// ConnContext is the http.Server hook that remembers each connection's
// ends, so its peer is looked up once per connection, not per request.
func (s *Server) ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, peerKey{}, &connPeer{local: c.LocalAddr(), remote: c.RemoteAddr()})
}

// peerUID returns the uid at the other end of r's connection.
func (s *Server) peerUID(r *http.Request) (int, error) {
	lookup := s.PeerUID
	if lookup == nil {
		lookup = peer.UID
	}
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
	if s.holdsFileSecret(r) {
		return true
	}
	uid, err := s.peerUID(r)
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
