package main

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// The bridge's own server gets the limits (bridge/httplimit tests what
// each does): timeouts set, a cap, and no write deadline on hook calls,
// which may wait for a message as long as the agent is idle.
func TestServerLimits(t *testing.T) {
	l := serverLimits()
	if l.ReadHeader <= 0 || l.Read <= 0 || l.Write <= 0 || l.Idle <= 0 || l.MaxConns < 16 {
		t.Fatalf("limits: %+v", l)
	}
	srv := l.Server(nil)
	if srv.ReadTimeout != l.Read || srv.IdleTimeout != l.Idle || srv.WriteTimeout != l.Write || srv.ReadHeaderTimeout != l.ReadHeader {
		t.Errorf("server: %+v", srv)
	}
	for req, long := range map[string]bool{
		"POST /hook/rewake": true, "POST /hook/stop": true, "POST /api/workspaces": true,
		"GET /workspace/w/session/stream": false, "GET /api/workspaces": false,
		"POST /workspace/w/session/messages": false,
	} {
		method, path, _ := strings.Cut(req, " ")
		if got := l.Long(httptest.NewRequest(method, path, nil)); got != long {
			t.Errorf("Long(%s) = %v", req, got)
		}
	}
}
