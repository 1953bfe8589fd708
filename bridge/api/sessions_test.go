package api

import (
	"encoding/json"
	"net/http"
	"testing"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
)

// withTabs gives ws1 three sessions: the active Claude tab, a background
// one, and a Cursor tab the bridge cannot read.
func withTabs(e *env) {
	eng := e.srv.Engine.(*fakeEngine)
	in := &eng.list[0]
	in.DisplayName, in.Workflow = "Fix the login page", "in-progress"
	in.Sessions = []engine.SessionInfo{
		{SessionID: "s1", ConductorID: "tab-1", Agent: "claude", Title: "Login", Status: "working", Active: true, Streamed: true, LastEventID: 3},
		{SessionID: "s2", ConductorID: "s2", Agent: "claude", Title: "Tests", Status: "needs_input", Reason: "question", Unread: 1, Streamed: true},
		{SessionID: "s3", ConductorID: "tab-3", Agent: "cursor", Title: "Cursor", Status: "idle"},
	}
}

func TestWorkspacesListSessions(t *testing.T) {
	e := newEnv(t)
	withTabs(e)
	code, body := e.do(t, req{path: "/api/workspaces", bearer: e.token.Value()})
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	ws := body["workspaces"].([]any)[0].(map[string]any)
	if ws["display_name"] != "Fix the login page" || ws["workflow"] != "in-progress" || ws["name"] != "tokyo" || ws["status"] != "working" {
		t.Errorf("workspace fields: %v", ws)
	}
	sessions := ws["sessions"].([]any)
	if len(sessions) != 3 {
		t.Fatalf("sessions: %v", sessions)
	}
	s1, s2 := sessions[0].(map[string]any), sessions[1].(map[string]any)
	for k, want := range map[string]any{"session_id": "s1", "conductor_session_id": "tab-1", "agent": "claude", "title": "Login",
		"status": "working", "active": true, "unread": 0.0, "pid": 0.0, "last_event_id": 3.0} {
		if s1[k] != want {
			t.Errorf("session %s = %v, want %v", k, s1[k], want)
		}
	}
	if _, ok := s2["conductor_session_id"]; ok {
		t.Errorf("conductor_session_id given though it equals session_id: %v", s2)
	}
	if s2["reason"] != "question" || s2["unread"] != 1.0 {
		t.Errorf("background tab: %v", s2)
	}
	// Workspaces with no sessions still give a list, never null.
	other := body["workspaces"].([]any)[1].(map[string]any)
	if l, ok := other["sessions"].([]any); !ok || len(l) != 0 {
		t.Errorf("sessions of a workspace without any: %#v", other["sessions"])
	}
}

func TestStreamNarrowedToOneSession(t *testing.T) {
	e := newEnv(t)
	topic := e.topics["ws1"]
	topic.Publish([]event.Event{
		{Type: event.User, SessionID: "s1", Content: "one"},
		{Type: event.User, SessionID: "s2", Content: "two"},
		{Type: event.Pairing, Workspace: "ws1", Paired: true},
		{Type: event.Assistant, SessionID: "s2", Content: "three"},
		{Type: event.Assistant, SessionID: "s1", Content: "four"},
	}, nil)
	got := readSSE(t, e, "/workspace/ws1/session/stream?session=s2", nil, 3)
	var ids []int64
	for _, m := range got {
		var ev event.Event
		json.Unmarshal(m.Data, &ev)
		if ev.SessionID != "s2" && ev.Type != event.Pairing {
			t.Errorf("event of session %q in a stream narrowed to s2", ev.SessionID)
		}
		ids = append(ids, m.ID)
	}
	if len(ids) != 3 || ids[0] != 2 || ids[1] != 3 || ids[2] != 4 {
		t.Errorf("ids %v, want [2 3 4]", ids)
	}
	// Resumable like any stream: after the last seen id of the session.
	got = readSSE(t, e, "/workspace/ws1/session/stream?session=s1", map[string]string{"Last-Event-ID": "1"}, 2)
	if len(got) != 2 || got[0].ID != 3 || got[1].ID != 5 {
		t.Errorf("resumed s1 stream: %+v", got)
	}
}

func TestMessagesGoToTheirSession(t *testing.T) {
	e := newEnv(t)
	withTabs(e)
	post := func(body string) (int, map[string]any) {
		return e.do(t, req{method: "POST", path: "/workspace/ws1/session/messages", body: body, ctype: "application/json", bearer: e.token.Value()})
	}
	tests := []struct {
		body   string
		code   int
		target string
	}{
		{`{"message":"to the active tab"}`, http.StatusAccepted, "s1"},
		{`{"message":"to the background tab","session_id":"s2"}`, http.StatusAccepted, "s2"},
		{`{"message":"by Conductor's tab id","session_id":"tab-1"}`, http.StatusAccepted, "s1"},
		{`{"message":"to a cursor tab","session_id":"s3"}`, http.StatusConflict, ""},
		{`{"message":"nowhere","session_id":"nope"}`, http.StatusNotFound, ""},
	}
	for _, tt := range tests {
		code, body := post(tt.body)
		if code != tt.code {
			t.Errorf("%s: status %d %v, want %d", tt.body, code, body, tt.code)
			continue
		}
		if tt.code == http.StatusAccepted && body["session_id"] != tt.target {
			t.Errorf("%s: target %v, want %s", tt.body, body["session_id"], tt.target)
		}
		if tt.code == http.StatusConflict && body["error"] == "" {
			t.Errorf("%s: a 409 without a reason", tt.body)
		}
	}
	// Only a hook call from the target session takes a message.
	if m, ok, _ := e.queue.Take("ws1", "stop", "s2"); !ok || m.Text != "to the background tab" {
		t.Errorf("s2's hook took %+v %v", m, ok)
	}
	if _, ok, _ := e.queue.Take("ws1", "stop", "s2"); ok {
		t.Errorf("s2's hook took a message for s1")
	}
	_, body := e.do(t, req{path: "/workspace/ws1/session/messages", bearer: e.token.Value()})
	msgs := body["messages"].([]any)
	if len(msgs) != 3 || msgs[0].(map[string]any)["session_id"] != "s1" {
		t.Errorf("the listing shows each message's target: %v", msgs)
	}
}
