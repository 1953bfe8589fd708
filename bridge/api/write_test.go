package api

import (
	"encoding/json"
	"strings"
	"testing"

	"conductorbridge/bridge/inject"
)

func newWriteServer(t *testing.T) *env { return newEnv(t) }

func TestInjectMessageAndEveryRefusal(t *testing.T) {
	e := newWriteServer(t)
	tok := e.token.Value()
	const path = "/workspace/ws1/session/messages"
	ok := req{method: "POST", path: path, body: `{"message":"no, test the mobile view"}`, ctype: "application/json", bearer: tok}

	code, body := e.do(t, ok)
	if code != 202 || body["status"] != "queued" || body["position"] != 1.0 || !strings.HasPrefix(body["id"].(string), "m-") {
		t.Fatalf("inject: %d %v", code, body)
	}
	with := func(f func(*req)) req { r := ok; f(&r); return r }
	tests := []struct {
		name string
		r    req
		want int
	}{
		{"no token", with(func(r *req) { r.bearer = "" }), 401},
		{"wrong token", with(func(r *req) { r.bearer = strings.Repeat("0", 64) }), 401},
		{"hook secret is not the API token", with(func(r *req) { r.bearer = e.hook.Value() }), 401},
		{"dns rebinding host", with(func(r *req) { r.host = "evil.example:" + e.port }), 403},
		{"foreign origin", with(func(r *req) { r.origin = "https://evil.example" }), 403},
		{"form post", with(func(r *req) { r.ctype = "application/x-www-form-urlencoded"; r.body = "message=hi" }), 415},
		{"text/plain", with(func(r *req) { r.ctype = "text/plain" }), 415},
		{"no content type", with(func(r *req) { r.ctype = "" }), 415},
		{"huge body", with(func(r *req) { r.body = `{"message":"` + strings.Repeat("x", MaxBody) + `"}` }), 413},
		{"too long for a hook", with(func(r *req) { r.body = `{"message":"` + strings.Repeat("x", inject.MaxRunes+1) + `"}` }), 413},
		{"empty message", with(func(r *req) { r.body = `{"message":"  \n "}` }), 400},
		{"no message field", with(func(r *req) { r.body = `{"text":"hi"}` }), 400},
		{"not json", with(func(r *req) { r.body = `{message: hi}` }), 400},
		{"two values", with(func(r *req) { r.body = `{"message":"a"}{"message":"b"}` }), 400},
		{"unknown workspace", with(func(r *req) { r.path = "/workspace/nope/session/messages" }), 404},
		{"allowed origin", with(func(r *req) { r.origin = "chrome-extension://good" }), 202},
	}
	for _, tt := range tests {
		if code, body := e.do(t, tt.r); code != tt.want {
			t.Errorf("%s: %d %v, want %d", tt.name, code, body, tt.want)
		}
	}
	if n := len(e.queue.List("ws1")); n != 2 {
		t.Errorf("%d messages queued, want 2 (the accepted ones only)", n)
	}
	for i := 2; i < inject.MaxQueued; i++ {
		e.do(t, ok)
	}
	if code, _ := e.do(t, ok); code != 429 {
		t.Errorf("full queue: %d", code)
	}

	// Listing and cancelling.
	resp := e.send(t, req{path: path, bearer: tok})
	var list struct{ Messages []inject.Message }
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if len(list.Messages) != inject.MaxQueued || list.Messages[0].State != "queued" {
		t.Fatalf("list: %d", len(list.Messages))
	}
	first := list.Messages[0].ID
	if code, _ := e.do(t, req{method: "DELETE", path: path + "/" + first}); code != 401 {
		t.Errorf("cancel without token: %d", code)
	}
	if code, body := e.do(t, req{method: "DELETE", path: path + "/" + first, bearer: tok}); code != 200 || body["status"] != "cancelled" {
		t.Errorf("cancel: %d %v", code, body)
	}
	if code, _ := e.do(t, req{method: "DELETE", path: path + "/" + first, bearer: tok}); code != 409 {
		t.Errorf("cancel twice: %d", code)
	}
	e.queue.Take("ws1", "stop", "s")
	second := list.Messages[1].ID
	if code, _ := e.do(t, req{method: "DELETE", path: path + "/" + second, bearer: tok}); code != 409 {
		t.Errorf("cancel delivered: %d", code)
	}
}

func TestHookEndpointNeedsHookSecret(t *testing.T) {
	e := newWriteServer(t)
	body := `{"session_id":"s","cwd":"/w/tokyo","hook_event_name":"Stop"}`
	r := req{method: "POST", path: "/hook/stop", body: body, ctype: "application/json", bearer: e.hook.Value()}
	if code, ans := e.do(t, r); code != 200 || ans["stdout"] != "ok" {
		t.Fatalf("hook: %d %v", code, ans)
	}
	r.bearer = e.token.Value()
	if code, _ := e.do(t, r); code != 401 {
		t.Errorf("API token accepted for a hook: %d", code)
	}
	r.bearer = e.hook.Value()
	r.path = "/hook/rm-rf"
	if code, _ := e.do(t, r); code != 404 {
		t.Errorf("unknown hook event: %d", code)
	}
	if len(e.hooks.calls) != 1 || e.hooks.calls[0] != "stop:/w/tokyo" {
		t.Errorf("hook calls: %v", e.hooks.calls)
	}
}
