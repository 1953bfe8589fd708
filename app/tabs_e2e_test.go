package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
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

func (e *tabsEnv) open(i int, o claudetest.Options) {
	e.t.Helper()
	e.ctx, e.tabs[i] = e.session(e.models[i], o)
}

// demoTabs writes Conductor's database (schema.sql) with the workspace's
// two tabs and their ids: A is the tab on screen, B a background one.
func (e *tabsEnv) demoTabs() {
	e.t.Helper()
	conductorDB(e.t, e.home, `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'demo', '`+e.dir+`');
INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, branch, state, active_session_id)
	VALUES ('w-demo', 'r1', 'demo', '`+e.dir+`', 'me/demo', 'ready', 's-a');
INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden) VALUES
	('s-a', 'w-demo', 'idle', 'claude', 'Tab A', '`+e.ids[0]+`', 0),
	('s-b', 'w-demo', 'idle', NULL, 'Tab B', '`+e.ids[1]+`', 0);`)
}

// firstRuns runs each tab's first turn the way Conductor opens a tab
// (--session-id), then ends both: what follows runs them with --resume.
func (e *tabsEnv) firstRuns() {
	e.t.Helper()
	for i := range 2 {
		e.open(i, claudetest.Options{SessionID: e.ids[i]})
		e.tabs[i].Send("set up")
		if _, err := e.tabs[i].WaitResult(e.ctx); err != nil {
			e.t.Fatal(err)
		}
		endSession(e.tabs[i])
	}
}

// sessionsOf reads a workspace's sessions from the API.
func (e *agentEnv) sessionsOf(ws string) map[string]map[string]any {
	e.t.Helper()
	var out struct {
		Sessions []map[string]any `json:"sessions"`
	}
	if err := getJSON(context.Background(), e.p.cl(), "/api/workspaces/"+ws, e.p.token(), &out); err != nil {
		e.t.Fatal(err)
	}
	m := map[string]map[string]any{}
	for _, s := range out.Sessions {
		m[s["session_id"].(string)] = s
	}
	return m
}

// TestTwoTabsOfRealClaudeCode runs two real Claude Code sessions in one
// Conductor worktree, each first with --session-id and then with
// --resume. Their turns overlap (A's waits on a tool while B's runs), so
// the workspace's stream interleaves them: each event streams under its
// own session_id with no session flip in between; ?session= narrows the
// stream to the background tab alone and resumes with Last-Event-ID across
// a bridge restart; and a message sent to the background tab reaches that
// tab's model and not the other's.
func TestTwoTabsOfRealClaudeCode(t *testing.T) {
	toolA, releaseA := gate(t)
	e := newTabsEnv(t, [2][]fakemodel.Turn{
		{fakemodel.Reply(fakemodel.Text("A is set up.")), fakemodel.Reply(fakemodel.Bash(toolA)), fakemodel.Reply(fakemodel.Text("A is done."))},
		{fakemodel.Reply(fakemodel.Text("B is set up.")), fakemodel.Reply(fakemodel.Text("B is done.")), fakemodel.Reply(fakemodel.Text("B got the message."))},
	})
	a, b := e.ids[0], e.ids[1]
	e.demoTabs()
	e.start(0)
	e.firstRuns()
	for i := range 2 {
		e.open(i, claudetest.Options{Resume: e.ids[i]})
	}
	ws := e.workspace()
	if ws.ID != "w-demo" {
		t.Errorf("the workspace is %q, not Conductor's row", ws.ID)
	}
	c := openStream(t, e.p, ws.ID, 0)
	has := func(evs []event.Event, session, typ, text string) bool {
		for _, ev := range evs {
			if ev.SessionID == session && ev.Type == typ && (text == "" || ev.Input == text || ev.Content == text) {
				return true
			}
		}
		return false
	}
	// A's turn starts and waits on its tool; B's whole turn runs meanwhile;
	// then A's ends.
	e.tabs[0].Send("work in tab A")
	// The resumed agent's start and first request are its own, bounded by
	// the session's context: with two suites side by side (load 20-26)
	// they took the stream wait's 30 s in both copies. The wait is the
	// bridge's from the model's answer on.
	if _, err := e.models[0].WaitRequest(e.ctx, func(r fakemodel.Request) bool {
		return r.Kind == fakemodel.KindMain && r.ContainsText("work in tab A")
	}); err != nil {
		t.Fatalf("tab A's model never got its prompt: %v", err)
	}
	c.until(t, 30*time.Second, func(evs []event.Event) bool { return has(evs, a, event.ToolUse, toolA) })
	e.tabs[1].Send("work in tab B")
	if _, err := e.tabs[1].WaitResult(e.ctx); err != nil {
		t.Fatal(err)
	}
	c.until(t, 30*time.Second, func(evs []event.Event) bool { return has(evs, b, event.TurnComplete, "") }) // after what the last wait read
	releaseA()
	if _, err := e.tabs[0].WaitResult(e.ctx); err != nil {
		t.Fatal(err)
	}
	evs := openStream(t, e.p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		n := turnsBySession(evs)
		return n[a] == 2 && n[b] == 2
	})
	// The overlap: between A's tool call and A's turn's end, B's turn.
	var window []event.Event
	for i, ev := range evs {
		if ev.SessionID == a && ev.Type == event.ToolUse && ev.Input == toolA {
			for _, w := range evs[i+1:] {
				if w.SessionID == a && w.Type == event.TurnComplete {
					break
				}
				window = append(window, w)
			}
			break
		}
	}
	if !has(window, b, event.Assistant, "B is done.") || !has(window, b, event.TurnComplete, "") {
		t.Fatalf("the tabs' turns did not overlap in the stream: %v", kinds(evs))
	}
	for _, ev := range window {
		if ev.Type == event.Session {
			t.Errorf("session event %d (%s of %s) while both tabs were at work", ev.ID, ev.Reason, ev.SessionID)
		}
	}
	for i, ev := range evs {
		if ev.SessionID != a && ev.SessionID != b {
			t.Errorf("event %d (%s) names session %q", ev.ID, ev.Type, ev.SessionID)
		}
		if ev.Type == event.Session && ev.Reason != "start" && ev.Reason != "end" {
			t.Errorf("session event %d with reason %q", ev.ID, ev.Reason)
		}
		if i > 0 && ev.ID <= evs[i-1].ID {
			t.Fatalf("ids not increasing at %d", ev.ID)
		}
		switch {
		case ev.Type == event.ToolUse && ev.Input == toolA && ev.SessionID != a,
			ev.Type == event.Assistant && ev.Content == "B is done." && ev.SessionID != b,
			ev.Type == event.Assistant && ev.Content == "A is done." && ev.SessionID != a:
			t.Errorf("event %d streamed under the wrong tab: %+v", ev.ID, ev)
		}
		if ev.Type == event.TurnComplete && !ev.CostKnown {
			t.Errorf("turn of %s has no known cost: %+v", ev.SessionID, ev)
		}
	}
	sess := e.sessionsOf(ws.ID)
	if len(sess) != 2 || sess[a]["agent"] != "claude" || sess[b]["status"] != "idle" ||
		sess[a]["conductor_session_id"] != "s-a" || sess[b]["title"] != "Tab B" || sess[a]["active"] != true || sess[b]["active"] != false {
		t.Errorf("sessions listed: %v", sess)
	}

	// Narrowed to the background tab B: exactly B's events of the full
	// stream, and resumed there after a restart.
	var wantB []int64
	for _, ev := range evs {
		if ev.SessionID == b {
			wantB = append(wantB, ev.ID)
		}
	}
	lastB := wantB[len(wantB)-1]
	narrowB := e.narrow(ws.ID, b, 0, lastB)
	if !slices.Equal(ids(narrowB), wantB) {
		t.Errorf("?session=%s gave events %v, want B's %v", b, ids(narrowB), wantB)
	}
	e.p.kill(9)
	e.start(mustPort(t, e.p.base)) // the same address: clients reconnect to it
	from := wantB[len(wantB)/2]
	if got := e.narrow(ws.ID, b, from, lastB); !slices.Equal(ids(got), wantB[len(wantB)/2+1:]) {
		t.Errorf("narrowed stream resumed after %d across a restart: %v, want %v", from, ids(got), wantB[len(wantB)/2+1:])
	}

	// The terminal lists both tabs, and `send <workspace>/<session>`
	// targets the background tab B, reaching B's model only.
	out, err := runCLI(t, "workspaces", "--home", e.home)
	if err != nil || !strings.Contains(out, "/"+a) || !strings.Contains(out, "/"+b) {
		t.Errorf("workspaces does not list both tabs: %v\n%s", err, out)
	}
	out, err = runCLI(t, "send", "--home", e.home, ws.Name+"/"+b[:8], "tab B: check the footer")
	if err != nil || !strings.Contains(out, "queued") || !strings.Contains(out, b) {
		t.Fatalf("send to a tab: %v\n%s", err, out)
	}
	id := strings.Fields(out)[0]
	waitRequest(t, e.models[1], "tab B: check the footer")
	for _, r := range e.models[0].MainRequests() {
		if r.ContainsText("check the footer") {
			t.Errorf("tab A's model got the message for tab B")
		}
	}
	if m := e.waitState(ws.ID, id, "confirmed"); m.Session != b {
		t.Errorf("delivered to session %q", m.Session)
	}
}

// narrow reads a workspace's stream narrowed to one session, resuming
// after lastID with Last-Event-ID as a reconnecting client does, up to the
// event until.
func (e *tabsEnv) narrow(ws, session string, lastID, until int64) []event.Event {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []event.Event
	err := streamEvents(ctx, e.p.base+"/workspace/"+ws+"/session/stream?session="+session, e.p.token(), lastID, func(ev event.Event) bool {
		got = append(got, ev)
		return ev.ID < until
	})
	if err != nil && !errors.Is(err, context.Canceled) {
		e.t.Fatalf("narrowed stream after %d: %v (got %v)", lastID, err, ids(got))
	}
	return got
}

func ids(evs []event.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.ID
	}
	return out
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
func streamEvents(ctx context.Context, u, token string, lastID int64, fn func(event.Event) bool) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
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
