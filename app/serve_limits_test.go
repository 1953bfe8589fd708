package main

import (
	"net/http/httptest"
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
	for path, long := range map[string]bool{
		"/hook/rewake": true, "/hook/stop": true,
		"/workspace/w/session/stream": false, "/api/workspaces": false,
	} {
		if got := l.Long(httptest.NewRequest("POST", path, nil)); got != long {
			t.Errorf("Long(%s) = %v", path, got)
		}
	}
}
