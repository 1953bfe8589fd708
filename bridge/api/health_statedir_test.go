package api

import (
	"net"
	"os"
	"testing"

	"conductorbridge/bridge/peer"
)

// TestHealthTellsTheStateDirToTheUsersProgramsOnly: GET /health?state_dir
// names the bridge's state folder to a program of its own user (the CLI
// of another folder then says which to pass), never to a browser page
// (same user, but a browser's headers), another user, or a peer it cannot
// tell; plain /health never names it (nor looks the peer up).
func TestHealthTellsTheStateDirToTheUsersProgramsOnly(t *testing.T) {
	const dir = "/home/me/.local/state/conductor-bridge"
	own := func(net.Addr, net.Addr) (int, error) { return os.Getuid(), nil }
	tests := []struct {
		name   string
		lookup func(net.Addr, net.Addr) (int, error)
		r      req
		tells  bool
	}{
		{"the user's program", own, req{path: "/health?state_dir"}, true},
		{"not asked", own, req{path: "/health"}, false},
		{"a page (Origin)", own, req{path: "/health?state_dir", origin: extOrigin}, false},
		{"a page (fetch metadata)", own, req{path: "/health?state_dir", hdr: map[string]string{"Sec-Fetch-Mode": "cors"}}, false},
		{"another user", func(net.Addr, net.Addr) (int, error) { return os.Getuid() + 1, nil }, req{path: "/health?state_dir"}, false},
		{"a peer not known", func(net.Addr, net.Addr) (int, error) { return -1, peer.ErrUnknown }, req{path: "/health?state_dir"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t) // a connection's peer is looked up once: a new server, a new connection
			e.srv.StateDir, e.srv.PeerUID = dir, tt.lookup
			code, body := e.do(t, tt.r)
			if code != 200 {
				t.Fatalf("health: %d %v", code, body)
			}
			if got, ok := body["state_dir"]; ok != tt.tells || (ok && got != dir) {
				t.Errorf("state_dir %v (present %v), want present %v", got, ok, tt.tells)
			}
		})
	}
}
