package api

import (
	"net/http"
	"strings"
	"testing"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/inject"
)

// TestOpenCodeTabWithoutItsSessionIDIsRefused: an OpenCode ("acp") tab
// whose row names no OpenCode session is listed under the tab's own id,
// which no `opencode run --session` can take. A message for it answers 409
// at once with the reason, and the listing says so too, instead of being
// queued and retried for ever; a session under OpenCode's own id is
// queued.
func TestOpenCodeTabWithoutItsSessionIDIsRefused(t *testing.T) {
	e := newEnv(t)
	eng := e.srv.Engine.(*fakeEngine)
	eng.list[0].Sessions = []engine.SessionInfo{
		{SessionID: "s-tab", ConductorID: "s-tab", Agent: opencode.Agent, Status: "idle", Streamed: true},
		{SessionID: "ses_2f1c9a0b7ffeAbCdEf", ConductorID: "s-two", Agent: opencode.Agent, Status: "idle", Streamed: true},
	}
	e.srv.Routes = []Router{&inject.Delivery{Queue: e.queue, Pusher: opencode.Pusher{Bin: "/usr/bin/opencode"}}}
	post := func(session string) (int, map[string]any) {
		return e.do(t, req{method: "POST", path: "/workspace/ws1/session/messages", ctype: "application/json", bearer: e.token.Value(),
			body: `{"message":"check the footer","session_id":"` + session + `"}`})
	}
	code, body := post("s-tab")
	if why, _ := body["error"].(string); code != http.StatusConflict || !strings.Contains(why, `"s-tab" is not an OpenCode session id`) {
		t.Errorf("a message for the tab with no OpenCode id: %d %v, want 409 naming the id", code, body)
	}
	if n := len(e.queue.List("ws1")); n != 0 {
		t.Errorf("%d messages queued for it", n)
	}
	if code, body := post("ses_2f1c9a0b7ffeAbCdEf"); code != http.StatusAccepted {
		t.Errorf("a message for an OpenCode session id: %d %v", code, body)
	}
	_, list := e.do(t, req{path: "/api/workspaces/ws1", bearer: e.token.Value()})
	for _, s := range list["sessions"].([]any) {
		s := s.(map[string]any)
		blocked, _ := s["messages_blocked"].(string)
		if want := s["session_id"] == "s-tab"; strings.Contains(blocked, "not an OpenCode session id") != want {
			t.Errorf("session %v listed with messages_blocked %q", s["session_id"], blocked)
		}
	}
}
