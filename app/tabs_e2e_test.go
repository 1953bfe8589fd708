package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/claudetest"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/fakemodel"
	"conductorbridge/bridge/stream"
)

// tabsEnv is one worktree with two real Claude Code sessions in it, as
// two Conductor chat tabs run them: each started with --session-id, each
// against its own fake model, so a test can tell which tab a request
// came from.
type tabsEnv struct {
	*agentEnv
	ids    [2]string
	models [2]*fakemodel.Server
	tabs   [2]*claudetest.Session
	ctx    context.Context
}

func newTabsEnv(t *testing.T, scripts [2][]fakemodel.Turn) *tabsEnv {
	e := &tabsEnv{agentEnv: newAgentEnv(t)}
	e.ids = [2]string{"aaaaaaaa-7777-4777-8777-00000000000a", "bbbbbbbb-7777-4777-8777-00000000000b"}
	for i := range 2 {
		e.models[i] = fakemodel.NewTest(t, scripts[i]...)
	}
	return e
}

func (e *tabsEnv) open(i int) {
	e.t.Helper()
	e.ctx, e.tabs[i] = e.session(e.models[i], claudetest.Options{SessionID: e.ids[i]})
}

// sessionsOf reads a workspace's sessions from the API.
func (e *agentEnv) sessionsOf(ws string) map[string]map[string]any {
	e.t.Helper()
	var out struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := getJSON(context.Background(), e.p.base+"/api/workspaces/"+ws, e.p.token(), &out); err != nil {
		e.t.Fatal(err)
	}
	m := map[string]map[string]any{}
	for _, s := range out.Sessions {
		m[s["session_id"].(string)] = s
	}
	return m
}

// TestTwoTabsOfRealClaudeCode runs two real Claude Code sessions in one
// worktree: each tab's turn streams under its own session_id with no
// session flip between them, ?session= narrows the stream and resumes
// across a bridge restart, and a message sent to the background tab
// reaches that tab's model and not the other's.
func TestTwoTabsOfRealClaudeCode(t *testing.T) {
	e := newTabsEnv(t, [2][]fakemodel.Turn{
		{fakemodel.Reply(fakemodel.Bash("echo tab-a")), fakemodel.Reply(fakemodel.Text("A is done."))},
		{fakemodel.Reply(fakemodel.Text("B is done.")), fakemodel.Reply(fakemodel.Text("B got the message."))},
	})
	a, b := e.ids[0], e.ids[1]
	// Conductor's database (schema.sql) holds both tabs with their ids.
	conductorDB(t, e.home, `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'demo', '`+e.dir+`');
INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, branch, state, active_session_id)
	VALUES ('w-demo', 'r1', 'demo', '`+e.dir+`', 'me/demo', 'ready', 's-a');
INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden) VALUES
	('s-a', 'w-demo', 'idle', 'claude', 'Tab A', '`+a+`', 0),
	('s-b', 'w-demo', 'idle', NULL, 'Tab B', '`+b+`', 0);`)
	e.start(0)
	e.open(0)
	e.open(1)
	e.tabs[0].Send("work in tab A")
	if _, err := e.tabs[0].WaitResult(e.ctx); err != nil {
		t.Fatal(err)
	}
	e.tabs[1].Send("work in tab B")
	if _, err := e.tabs[1].WaitResult(e.ctx); err != nil {
		t.Fatal(err)
	}
	ws := e.workspace()
	if ws.ID != "w-demo" {
		t.Errorf("the workspace is %q, not Conductor's row", ws.ID)
	}
	turns := turnsBySession
	evs := openStream(t, e.p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		n := turns(evs)
		return n[a] == 1 && n[b] == 1
	})
	starts := map[string]int{}
	for i, ev := range evs {
		if ev.SessionID != a && ev.SessionID != b {
			t.Errorf("event %d (%s) names session %q", ev.ID, ev.Type, ev.SessionID)
		}
		if ev.Type == event.Session {
			if ev.Reason != "start" {
				t.Errorf("session event %d with reason %q between the tabs' lines", ev.ID, ev.Reason)
			}
			starts[ev.SessionID]++
		}
		if i > 0 && ev.ID <= evs[i-1].ID {
			t.Fatalf("ids not increasing at %d", ev.ID)
		}
		switch {
		case ev.Type == event.ToolUse && ev.Input == "echo tab-a" && ev.SessionID != a,
			ev.Type == event.Assistant && ev.Content == "B is done." && ev.SessionID != b:
			t.Errorf("event %d streamed under the wrong tab: %+v", ev.ID, ev)
		}
		if ev.Type == event.TurnComplete && !ev.CostKnown {
			t.Errorf("turn of %s has no known cost: %+v", ev.SessionID, ev)
		}
	}
	if starts[a] != 1 || starts[b] != 1 {
		t.Errorf("session starts %v, want one per tab", starts)
	}
	sess := e.sessionsOf(ws.ID)
	if len(sess) != 2 || sess[a]["agent"] != "claude" || sess[b]["status"] != "idle" ||
		sess[a]["conductor_session_id"] != "s-a" || sess[b]["title"] != "Tab B" || sess[a]["active"] != true {
		t.Errorf("sessions listed: %v", sess)
	}

	// Narrowed to tab A, and resumed there after a restart.
	lastA := int64(sess[a]["last_event_id"].(float64))
	narrow := func(after int64) []event.Event {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var got []event.Event
		err := streamEvents(ctx, e.p.base+"/workspace/"+ws.ID+"/session/stream?session="+a+"&after="+strconv.FormatInt(after, 10), e.p.token(), func(ev event.Event) bool {
			got = append(got, ev)
			return ev.ID < lastA
		})
		if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
			t.Fatal(err)
		}
		return got
	}
	for _, ev := range narrow(0) {
		if ev.SessionID != a {
			t.Errorf("?session=%s carried %s's event %d", a, ev.SessionID, ev.ID)
		}
	}
	e.p.kill(9)
	e.start(mustPort(t, e.p.base)) // the same address: clients reconnect to it
	got := narrow(lastA - 3)
	if len(got) == 0 || got[0].ID <= lastA-3 || got[len(got)-1].ID != lastA {
		t.Errorf("resumed narrowed stream after restart: %v", kinds(got))
	}

	// The terminal lists both tabs, and `send <workspace>/<session>`
	// targets the background tab (A: B ran last), reaching A's model only.
	out, err := runCLI(t, "workspaces", "--home", e.home)
	if err != nil || !strings.Contains(out, "/"+a) || !strings.Contains(out, "/"+b) {
		t.Errorf("workspaces does not list both tabs: %v\n%s", err, out)
	}
	out, err = runCLI(t, "send", "--home", e.home, ws.Name+"/"+a[:8], "tab A: check the footer")
	if err != nil || !strings.Contains(out, "queued") || !strings.Contains(out, a) {
		t.Fatalf("send to a tab: %v\n%s", err, out)
	}
	var res struct{ ID, SessionID string }
	res.ID, res.SessionID = strings.Fields(out)[0], a
	waitRequest(t, e.models[0], "tab A: check the footer")
	for _, r := range e.models[1].MainRequests() {
		if r.ContainsText("check the footer") {
			t.Errorf("tab B's model got the message for tab A")
		}
	}
	m := e.waitState(ws.ID, res.ID, "confirmed")
	if m.Session != a {
		t.Errorf("delivered to session %q", m.Session)
	}
}

// turnsBySession counts the turn_complete events of each session.
func turnsBySession(evs []event.Event) map[string]int {
	n := map[string]int{}
	for _, ev := range evs {
		if ev.Type == event.TurnComplete {
			n[ev.SessionID]++
		}
	}
	return n
}

func mustPort(t *testing.T, base string) int {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// streamEvents reads an SSE stream, handing each event to fn until fn
// returns false, the stream ends or ctx does.
func streamEvents(ctx context.Context, u, token string, fn func(event.Event) bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("stream: %s", resp.Status)
	}
	return stream.Read(resp.Body, func(m stream.Message) error {
		var ev event.Event
		if err := json.Unmarshal(m.Data, &ev); err != nil {
			return err
		}
		if !fn(ev) {
			return context.Canceled
		}
		return nil
	})
}
