package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

// home is a fake home: a workspace directory and its Claude Code project.
type home struct {
	t        testing.TB
	root     string
	projects string
	state    string
}

func newHome(t testing.TB) *home {
	root := t.TempDir()
	h := &home{t: t, root: root, projects: filepath.Join(root, ".claude", "projects"), state: filepath.Join(root, "state")}
	os.MkdirAll(h.projects, 0o755)
	return h
}

// workspace makes a directory and returns it with its transcript folder.
func (h *home) workspace(name string) (dir, proj string) {
	dir = filepath.Join(h.root, "work", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.t.Fatal(err)
	}
	proj = filepath.Join(h.projects, claude.EncodeProjectDir(dir))
	os.MkdirAll(proj, 0o755)
	return dir, proj
}

// session makes workspace name (as workspace does) and returns it with the
// path of sid's transcript in it; the lines prompt and answer make for
// sid carry the workspace as their cwd, as Claude Code's do.
func (h *home) session(name, sid string) (dir, path string) {
	dir, proj := h.workspace(name)
	cwdOf[sid] = dir
	return dir, filepath.Join(proj, sid+".jsonl")
}

// twoSessions makes workspace name with the transcripts of two sessions,
// a and b, in it (as session does for one).
func (h *home) twoSessions(name, a, b string) (dir, pa, pb string) {
	dir, pa = h.session(name, a)
	_, pb = h.session(name, b)
	return dir, pa, pb
}

// moveIn writes lines to a file beside the projects folder, then moves it
// to path whole: the bridge's first sight of it is a finished record.
func (h *home) moveIn(path string, lines ...string) {
	h.t.Helper()
	tmp := filepath.Join(h.root, filepath.Base(path))
	h.write(tmp, lines...)
	if err := os.Rename(tmp, path); err != nil {
		h.t.Fatal(err)
	}
}

func (h *home) write(path string, lines ...string) {
	h.t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			h.t.Fatal(err)
		}
	}
}

// testAgents are the bridge's drivers as app lists them, on a test's
// folders.
func testAgents(projects, codexHome string) []agent.Agent {
	return []agent.Agent{claude.Agent{Projects: projects}, codex.Agent{Home: codexHome}}
}

// running is an engine on the fake home, stopped when the test ends.
type running struct {
	eng    *Engine
	hub    *stream.Hub
	cancel context.CancelFunc
	done   chan struct{}
}

func (h *home) start() *running { return h.startWith(nil) }

func (h *home) startWith(tune func(*Config)) *running {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	hub := stream.NewHub(filepath.Join(h.state, "streams"), 0)
	cfg := Config{
		Scanner:    &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}},
		Hub:        hub,
		Log:        zerolog.Nop(),
		Agents:     testAgents(h.projects, ""),
		ScanEvery:  50 * time.Millisecond,
		SweepEvery: 50 * time.Millisecond,
		QuietAfter: 150 * time.Millisecond,
		TailBytes:  4096,
	}
	if tune != nil {
		tune(&cfg)
	}
	eng := New(cfg)
	r := &running{eng: eng, hub: hub, cancel: cancel, done: make(chan struct{})}
	go func() { eng.Run(ctx); close(r.done) }()
	h.t.Cleanup(r.stop)
	return r
}

// followOne makes workspace name with session sid's transcript, its one
// line the person's prompt first, starts the engine with the scan and the
// sweep a minute apart (what comes after the start comes by file events)
// and waits until it follows the workspace. It returns the engine, the
// workspace's id and the transcript's path.
func (h *home) followOne(name, sid, first string) (r *running, id, path string) {
	h.t.Helper()
	dir, path := h.session(name, sid) // before prompt: it gives the line its cwd
	h.write(path, prompt(sid, first))
	r = h.startWith(func(c *Config) { c.ScanEvery, c.SweepEvery = time.Minute, time.Minute })
	return r, waitWorkspaceFor(h.t, r, dir, 5*time.Second), path
}

func (r *running) stop() {
	r.cancel()
	<-r.done
	r.hub.Close()
}

// waitWorkspace waits until the engine follows dir and returns its id.
func (r *running) waitWorkspace(t *testing.T, dir string) string {
	t.Helper()
	return waitWorkspaceFor(t, r, dir, 5*time.Second)
}

// firstTurn waits for workspace dir and for its first turn_complete, and
// returns the workspace's id and the last event id by then.
func (r *running) firstTurn(t *testing.T, dir string) (id string, last int64) {
	t.Helper()
	id = r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, has(event.TurnComplete, ""))
	return id, evs[len(evs)-1].ID
}

// waitPrompt waits for workspace dir and for the person's prompt text in
// its stream, and returns the workspace's id.
func (r *running) waitPrompt(t *testing.T, dir, text string) (id string) {
	t.Helper()
	id = r.waitWorkspace(t, dir)
	r.collect(t, id, 0, has(event.User, text))
	return id
}

// collect subscribes after `after` and gathers events until pred is
// satisfied by the collected list, or fails after a timeout.
func (r *running) collect(t *testing.T, id string, after int64, pred func([]event.Event) bool) []event.Event {
	t.Helper()
	topic, ok := r.eng.Topic(id)
	if !ok {
		t.Fatalf("no topic %s", id)
	}
	replay, _, sub := topic.Subscribe(after)
	defer topic.Unsubscribe(sub)
	var got []event.Event
	for _, it := range replay {
		got = append(got, it.Event())
	}
	timeout := time.After(5 * time.Second)
	for !pred(got) {
		select {
		case it := <-sub.C:
			got = append(got, it.Event())
		case <-timeout:
			t.Fatalf("timed out; got %s", summary(got))
		}
	}
	return got
}

func summary(evs []event.Event) string {
	var s []string
	for _, e := range evs {
		x := e.Type
		switch e.Type {
		case event.User, event.Assistant:
			x += ":" + e.Content
		case event.Status:
			x += ":" + e.State
		case event.Session:
			x += ":" + e.SessionID
		}
		s = append(s, fmt.Sprintf("%d=%s", e.ID, x))
	}
	return strings.Join(s, " ")
}

func has(kind, content string) func([]event.Event) bool {
	return func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Type == kind && (content == "" || e.Content == content || e.State == content || e.SessionID == content) {
				return true
			}
		}
		return false
	}
}

// countTurns counts the turn_complete events of session ("": of any).
func countTurns(evs []event.Event, session string) int {
	n := 0
	for _, e := range evs {
		if e.Type == event.TurnComplete && (session == "" || e.SessionID == session) {
			n++
		}
	}
	return n
}

// cwdOf is the workspace directory written into each test line, as
// Claude Code does; discovery reads it.
var cwdOf = map[string]string{}

func prompt(sid, text string) string {
	return fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":%q}}`, sid, cwdOf[sid], text)
}

func answer(sid, id, text string, stop string) string {
	s := "null"
	if stop != "" {
		s = fmt.Sprintf("%q", stop)
	}
	return fmt.Sprintf(`{"type":"assistant","sessionId":%q,"cwd":%q,"requestId":"r-%s","timestamp":"2026-01-01T00:00:02Z","message":{"id":%q,"model":"claude-sonnet-4-5","stop_reason":%s,"usage":{"input_tokens":10,"output_tokens":5},"content":[{"type":"text","text":%q}]}}`, sid, cwdOf[sid], id, id, s, text)
}

func TestFollowsLiveSessionAndNewSessions(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("app")
	cwdOf["s1"] = dir
	cwdOf["s2"] = dir
	s1 := filepath.Join(proj, "11111111-1111-4111-8111-111111111111.jsonl")
	h.write(s1, prompt("s1", "first"), answer("s1", "m1", "one", "end_turn"))
	r := h.start()
	id := r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, has(event.TurnComplete, ""))
	if got := summary(evs); !strings.Contains(got, "session:11111111") || !strings.Contains(got, "user:first") || !strings.Contains(got, "assistant:one") {
		t.Errorf("events: %s", got)
	}
	last := evs[len(evs)-1].ID

	// Appended lines stream live; a working turn shows as status working.
	h.write(s1, prompt("s1", "second"))
	evs = r.collect(t, id, last, has(event.Status, event.StateWorking))
	last = evs[len(evs)-1].ID

	// A newer session file in the same workspace is the live session now.
	time.Sleep(20 * time.Millisecond) // a later modification time
	s2 := filepath.Join(proj, "22222222-2222-4222-8222-222222222222.jsonl")
	h.write(s2, prompt("s2", "new session"))
	evs = r.collect(t, id, last, has(event.User, "new session"))
	if got := summary(evs); !strings.Contains(got, "session:22222222") {
		t.Errorf("no session event for the new file: %s", got)
	}
	// The snapshot is published just after the events are handed out:
	// a reader may see the event a moment before the workspace's info.
	var in Info
	waitFor(t, "the new session to be the workspace's", func() bool {
		in, _ = r.eng.Workspace(id)
		return in.SessionID == "22222222-2222-4222-8222-222222222222" && in.Active
	}, func() { t.Logf("workspace info: %+v", in) })
}

func TestNewAndRemovedWorkspacesWithoutRestart(t *testing.T) {
	h := newHome(t)
	r := h.start()
	dir, proj := h.workspace("later")
	cwdOf["s3"] = dir
	h.write(filepath.Join(proj, "33333333-3333-4333-8333-333333333333.jsonl"), prompt("s3", "hello"))
	id := r.waitPrompt(t, dir, "hello")

	topic, _ := r.eng.Topic(id)
	_, _, sub := topic.Subscribe(0)
	before := topic.LastID()
	os.RemoveAll(proj)
	os.RemoveAll(dir)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, ok := r.eng.Workspace(id); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("deleted workspace still listed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range sub.C { // its open streams end
	}
	r.eng.mu.RLock()
	watching := len(r.eng.watched)
	r.eng.mu.RUnlock()
	if watching != 1 { // the projects folder only
		t.Errorf("%d paths still watched", watching)
	}

	// It comes back: ids continue from the journal.
	dir, proj = h.workspace("later")
	h.write(filepath.Join(proj, "33333333-3333-4333-8333-333333333333.jsonl"), prompt("s3", "back"))
	r.waitWorkspace(t, dir)
	evs := r.collect(t, id, before, has(event.User, "back"))
	if evs[0].ID != before+1 {
		t.Errorf("ids restarted: first %d after %d", evs[0].ID, before)
	}
}

func TestOldFormatTurnEndsAfterQuiet(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("old")
	cwdOf["s4"] = dir
	h.write(filepath.Join(proj, "44444444-4444-4444-8444-444444444444.jsonl"),
		prompt("s4", "hi"), answer("s4", "m1", "hello", ""))
	r := h.start()
	id := r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, has(event.Status, event.StateIdle))
	if n := countTurns(evs, ""); n != 1 {
		t.Errorf("want one turn_complete, got %d: %s", n, summary(evs))
	}
}

// longHistory is a record of sid far longer than TailBytes (4 KiB): the
// prompt "ancient history", 200 answers, then the prompt "recent".
func longHistory(sid string) []string {
	lines := []string{prompt(sid, "ancient history")}
	for i := 0; i < 200; i++ {
		lines = append(lines, answer(sid, fmt.Sprintf("m%d", i), strings.Repeat("x", 100), "end_turn"))
	}
	return append(lines, prompt(sid, "recent"))
}

func TestColdStartReadsOnlyTheTail(t *testing.T) {
	h := newHome(t)
	const sid = "55555555-5555-4555-8555-555555555555"
	dir, path := h.session("big", sid)
	h.write(path, longHistory(sid)...)
	r := h.start()
	id := r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, has(event.User, "recent"))
	if strings.Contains(summary(evs), "ancient history") {
		t.Error("cold start read the whole file")
	}
	if len(evs) > 60 {
		t.Errorf("cold start emitted %d events from a 4 KiB tail", len(evs))
	}
}

// TestRestartResumesExactly kills the engine mid-stream, appends more, and
// restarts on the same state: a client resuming from its last id gets
// exactly the events it missed, numbered on from where it stopped.
func TestRestartResumesExactly(t *testing.T) {
	h := newHome(t)
	const sid = "66666666-6666-4666-8666-666666666666"
	dir, path := h.session("restart", sid)
	h.write(path, prompt(sid, "one"), answer(sid, "m1", "a1", "end_turn"))
	r := h.start()
	id, seen := r.firstTurn(t, dir)
	r.stop()

	h.write(path, prompt(sid, "two"), answer(sid, "m2", "a2", "end_turn"))
	r2 := h.start()
	if id2 := r2.waitWorkspace(t, dir); id2 != id {
		t.Fatalf("workspace id changed across restart: %s → %s", id, id2)
	}
	after := r2.collect(t, id, seen, has(event.Assistant, "a2"))
	after = r2.collect(t, id, seen, func(evs []event.Event) bool { return has(event.TurnComplete, "")(evs) })
	if after[0].ID != seen+1 {
		t.Errorf("first event after restart has id %d, want %d", after[0].ID, seen+1)
	}
	for i := 1; i < len(after); i++ {
		if after[i].ID != after[i-1].ID+1 {
			t.Errorf("ids not contiguous: %s", summary(after))
		}
	}
	got := summary(after)
	if strings.Contains(got, "user:one") || strings.Contains(got, "assistant:a1") || strings.Contains(got, "session:") {
		t.Errorf("replayed events from before the restart: %s", got)
	}
	if !strings.Contains(got, "user:two") || !strings.Contains(got, "assistant:a2") {
		t.Errorf("missed events: %s", got)
	}
}

func TestTruncatedTranscriptIsReadAgain(t *testing.T) {
	h := newHome(t)
	const sid = "77777777-7777-4777-8777-777777777777"
	dir, path := h.session("trunc", sid)
	h.write(path, prompt(sid, "before"), answer(sid, "m1", "x", "end_turn"))
	r := h.start()
	id, last := r.firstTurn(t, dir)
	os.WriteFile(path, []byte(prompt(sid, "rewritten")+"\n"), 0o644)
	r.collect(t, id, last, has(event.User, "rewritten"))
}

func TestMalformedLinesAreSkippedAndCounted(t *testing.T) {
	h := newHome(t)
	const sid = "88888888-8888-4888-8888-888888888888"
	dir, path := h.session("bad", sid)
	h.write(path, prompt(sid, "ok"), "{not json", `{"type":"user","message":`, prompt(sid, "still ok"))
	r := h.start()
	id := r.waitPrompt(t, dir, "still ok")
	if in, _ := r.eng.Workspace(id); in.Malformed != 2 {
		t.Errorf("malformed = %d, want 2", in.Malformed)
	}
}

func sideLine(cwd, text string) string {
	return fmt.Sprintf(`{"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":"s9","cwd":%q,"message":{"id":"sm-%s","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"text","text":%q}]}}`, cwd, text, text)
}

// TestSubagentTranscriptsAreFollowed covers Claude Code 2.1, which writes a
// subagent's transcript beside the session: its events stream, marked as
// sidechain, live and across a restart, without a turn of their own.
func TestSubagentTranscriptsAreFollowed(t *testing.T) {
	for _, watchDirs := range []bool{true, false} {
		t.Run(fmt.Sprintf("watchDirs=%v", watchDirs), func(t *testing.T) {
			h := newHome(t)
			dir, proj := h.workspace("sub")
			cwdOf["s9"] = dir
			sid := "99999999-0000-4000-8000-000000000009"
			main := filepath.Join(proj, sid+".jsonl")
			h.write(main, prompt("s9", "delegate"))
			subDir := filepath.Join(proj, sid, "subagents")
			os.MkdirAll(subDir, 0o755)
			sub := filepath.Join(subDir, "agent-a1.jsonl")
			h.write(sub, sideLine(dir, "sub one"))
			r := h.startWith(func(c *Config) { c.WatchDirs = &watchDirs })
			id := r.waitWorkspace(t, dir)
			evs := r.collect(t, id, 0, has(event.Assistant, "sub one"))
			var last event.Event
			for _, e := range evs {
				if e.Content == "sub one" {
					last = e
				}
			}
			if !last.Sidechain {
				t.Errorf("subagent event not marked sidechain: %+v", last)
			}
			h.write(sub, sideLine(dir, "sub two"))
			evs = r.collect(t, id, last.ID, has(event.Assistant, "sub two"))
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					t.Errorf("a subagent line ended a turn: %s", summary(evs))
				}
			}
			seen := evs[len(evs)-1].ID
			r.stop()
			h.write(sub, sideLine(dir, "sub three"))
			r2 := h.startWith(func(c *Config) { c.WatchDirs = &watchDirs })
			r2.waitWorkspace(t, dir)
			evs = r2.collect(t, id, seen, has(event.Assistant, "sub three"))
			if got := summary(evs); strings.Contains(got, "sub one") || strings.Contains(got, "sub two") {
				t.Errorf("replayed after restart: %s", got)
			}
		})
	}
}

// TestTwoLiveSessionsInOneWorkspace writes two sessions of one workspace in
// turn (two Conductor tabs, two terminals): each switch resumes the other
// session where it was, and nothing is published twice.
func TestTwoLiveSessionsInOneWorkspace(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("two")
	cwdOf["sa"], cwdOf["sb"] = dir, dir
	a := filepath.Join(proj, "aaaaaaaa-0000-4000-8000-00000000000a.jsonl")
	b := filepath.Join(proj, "bbbbbbbb-0000-4000-8000-00000000000b.jsonl")
	h.write(a, prompt("sa", "A-first"))
	r := h.start()
	id := r.waitPrompt(t, dir, "A-first")
	steps := []struct{ path, sid, text string }{{b, "sb", "B-first"}, {a, "sa", "A-second"}, {b, "sb", "B-second"}, {a, "sa", "A-third"}}
	for _, st := range steps {
		time.Sleep(30 * time.Millisecond) // a newer modification time
		h.write(st.path, prompt(st.sid, st.text))
		r.collect(t, id, 0, has(event.User, st.text))
	}
	all := r.collect(t, id, 0, has(event.User, "A-third"))
	count := map[string]int{}
	for _, e := range all {
		if e.Type == event.User {
			count[e.Content]++
		}
	}
	for _, text := range []string{"A-first", "B-first", "A-second", "B-second", "A-third"} {
		if count[text] != 1 {
			t.Errorf("%q published %d times: %s", text, count[text], summary(all))
		}
	}
}
