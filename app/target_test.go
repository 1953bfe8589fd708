package main

import (
	"strings"
	"testing"

	"conductorbridge/bridge/api"
)

func TestPickTarget(t *testing.T) {
	list := []apiWorkspace{
		{WorkspaceHead: api.WorkspaceHead{ID: "w1", Name: "tokyo", Repo: "app", Directory: "/src/app/tokyo"}, Sessions: []apiSession{
			{SessionID: "aaaa1111-0000", ConductorSessionID: "tab-1", Title: "Fix login"},
			{SessionID: "aaaa2222-0000", Title: "Tests"},
		}},
		{WorkspaceHead: api.WorkspaceHead{ID: "w2", Name: "osaka", Repo: "app", Directory: "/src/app/osaka"}},
	}
	tests := []struct {
		q, ws, session, err string
	}{
		{q: "tokyo", ws: "w1"},
		{q: "app/tokyo", ws: "w1"},      // repo/name is a workspace, not a session
		{q: "/src/app/osaka", ws: "w2"}, // so is a directory
		{q: "tokyo/aaaa2222-0000", ws: "w1", session: "aaaa2222-0000"},
		{q: "w1/aaaa1", ws: "w1", session: "aaaa1111-0000"}, // a prefix
		{q: "app/tokyo/tab-1", ws: "w1", session: "aaaa1111-0000"},
		{q: "tokyo/fix login", ws: "w1", session: "aaaa1111-0000"},
		{q: "tokyo/aaaa", err: "names 2 sessions"},
		{q: "tokyo/aa", err: "no session"}, // too short a prefix
		{q: "tokyo/nope", err: "no session"},
		{q: "kyoto/x", err: "no workspace"},
	}
	for _, tt := range tests {
		ws, s, err := pickTarget(list, tt.q)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.q, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.q, err)
		case ws.ID != tt.ws:
			t.Errorf("%q: workspace %s, want %s", tt.q, ws.ID, tt.ws)
		case tt.session == "" && s != nil, tt.session != "" && (s == nil || s.SessionID != tt.session):
			t.Errorf("%q: session %+v, want %q", tt.q, s, tt.session)
		}
	}
}
