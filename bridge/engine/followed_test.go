package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/browse"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// A plain write to a followed record takes the short cut of followed.go;
// these are the writes that must not. The scan and the sweep are an hour
// apart, so only the file events can bring what each test waits for.

// hourly starts the engine with the scan and the sweep an hour apart.
func hourly(c *Config) { c.ScanEvery, c.IdleScanEvery, c.SweepEvery = time.Hour, time.Hour, time.Hour }

// A session the workspace stopped following (its record went quiet past
// the active window) and then written to again is a session coming back:
// the write lists the workspace's sessions again, and the session streams
// from where it was left.
func TestARecordWrittenAfterItWasLeftIsFollowedAgain(t *testing.T) {
	h := newHome(t)
	const a, b = "aaaaaaaa-4444-4444-8444-0000000000a1", "bbbbbbbb-4444-4444-8444-0000000000b1"
	dir, pa, pb := h.twoSessions("left", a, b)
	h.write(pa, prompt(a, "first"), answer(a, "m1", "one", "end_turn"))
	h.write(pb, prompt(b, "other"), answer(b, "m2", "two", "end_turn"))
	r := h.startWith(hourly)
	id := r.waitWorkspace(t, dir)
	streamed := func(sid string) bool {
		in, _ := r.eng.Workspace(id)
		s, ok := sessionOf(in, sid)
		return ok && s.Streamed
	}
	waitFor(t, "both sessions followed", func() bool { return streamed(a) && streamed(b) })

	// a's record goes quiet past the active window: the change of its
	// times has the workspace list its sessions again, and a is left.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(pa, old, old); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a left", func() bool { return !streamed(a) })

	h.write(pa, prompt(a, "back"))
	evs := r.collect(t, id, 0, func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Type == event.User && e.Content == "back" && e.SessionID == a {
				return true
			}
		}
		return false
	})
	if got := summary(evs); countOf(evs, event.User, "first") != 1 {
		t.Errorf("a's first prompt published again when it came back: %s", got)
	}
}

// A record made empty beside a followed one, then written to, is a new
// session: its first write lists the workspace's sessions again (an empty
// record is not listed), though its folder's other record is followed.
func TestAWriteToANewRecordBesideAFollowedOneListsIt(t *testing.T) {
	h := newHome(t)
	const a, c = "aaaaaaaa-5555-4555-8555-0000000000a1", "cccccccc-5555-4555-8555-0000000000c1"
	dir, pa, pc := h.twoSessions("beside", a, c)
	h.write(pa, prompt(a, "first"), answer(a, "m1", "one", "end_turn"))
	r := h.startWith(hourly)
	id := r.waitPrompt(t, dir, "first")

	h.write(pc) // made empty, as `claude --resume` leaves one
	// A line of a's, read after the listing the new file asked for (the
	// events of one folder come in order): c was listed empty.
	h.write(pa, prompt(a, "marker"))
	r.collect(t, id, 0, has(event.User, "marker"))

	h.write(pc, prompt(c, "new session"))
	evs := r.collect(t, id, 0, has(event.User, "new session"))
	if !hasSession(evs, c) {
		t.Errorf("no session event for the new record: %s", summary(evs))
	}
}

// A Codex rollout, in a dated folder and not its workspace's project
// folder, streams what its agent appends by its file events.
func TestCodexRolloutStreamsByItsWrites(t *testing.T) {
	h := newHome(t)
	codexHome := filepath.Join(h.root, ".codex")
	dir, proj := h.workspace("demo")
	const a = "aaaaaaaa-6666-4666-8666-0000000000b1"
	cwdOf[a] = dir
	h.write(filepath.Join(proj, a+".jsonl"), prompt(a, "one"), answer(a, "m1", "a1", "end_turn"))
	lines := rolloutLines(t, dir)
	for i := range lines {
		lines[i] = now(lines[i])
	}
	rollout := filepath.Join(codexHome, "sessions", time.Now().Format("2006/01/02"), filepath.Base(corpus169))
	os.MkdirAll(filepath.Dir(rollout), 0o755)
	h.write(rollout, lines[:corpus169Turn]...)
	r := h.startWith(func(c *Config) {
		c.Scanner = &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}, codex.New(codexHome)},
			Processes: func() (map[string]int, error) { return nil, nil }}
		c.Agents = testAgents(h.projects, codexHome)
		hourly(c)
	})
	id := r.waitWorkspace(t, dir)
	waitFor(t, "the rollout followed", func() bool {
		in, _ := r.eng.Workspace(id)
		s, ok := sessionOf(in, corpus169ID)
		return ok && s.Streamed
	})
	h.write(rollout, lines[corpus169Turn:]...)
	r.collect(t, id, 0, has(event.User, "Thanks! What's in greeting.txt now?"))
}

// countOf counts the events of kind with content.
func countOf(evs []event.Event, kind, content string) int {
	n := 0
	for _, e := range evs {
		if e.Type == kind && e.Content == content {
			n++
		}
	}
	return n
}

// hasSession reports whether evs hold sid's session start.
func hasSession(evs []event.Event, sid string) bool {
	for _, e := range evs {
		if e.Type == event.Session && e.SessionID == sid && e.Reason == SessionStart {
			return true
		}
	}
	return false
}

// Where route sends a plain write to a path, were a workspace to follow
// it: the short cut only for a project folder's record and a dated
// agent's; the browse finder's files, Conductor's database and what else
// route looks at by name go the long way.
func TestWriteRoutesOfFollowedPaths(t *testing.T) {
	h := newHome(t)
	codexHome := filepath.Join(h.root, ".codex")
	dir, proj := h.workspace("routes")
	db := filepath.Join(h.root, "conductor", "conductor.db")
	e := New(Config{Agents: testAgents(h.projects, codexHome), Browse: &browse.Finder{Log: zerolog.Nop()},
		RescanOn: []string{db, filepath.Join(h.root, "conductor", "workspaces")}, Log: zerolog.Nop()})
	day := filepath.Join(codexHome, "sessions", "2026", "12", "05")
	for _, tc := range []struct {
		name, path string
		want       writeRoute
	}{
		{"a project folder's record", filepath.Join(proj, "aaaaaaaa-7777-4777-8777-0000000000a1.jsonl"), writeProject},
		{"a subagent's record", filepath.Join(proj, "aaaaaaaa-7777-4777-8777-0000000000a1", "subagents", "agent-a1.jsonl"), writeProject},
		{"a Codex rollout", filepath.Join(day, "rollout-2026-12-05T10-00-00-019a0000-1111-7222-8333-000000000001.jsonl"), writeDated},
		{"another file in a dated folder", filepath.Join(day, "notes.txt"), writeOther},
		{"a browse server's state file", filepath.Join(dir, ".gstack", "browse.json"), writeOther},
		{"a browse server's log", filepath.Join(dir, ".gstack", "browse-console.log"), writeOther},
		{"Conductor's database", db, writeOther},
		{"a file in Conductor's workspaces folder", filepath.Join(h.root, "conductor", "workspaces", "x.jsonl"), writeOther},
		{"a file in the projects root itself", filepath.Join(h.projects, "stray.jsonl"), writeOther},
	} {
		if got := e.writeRouteOf(tc.path); got != tc.want {
			t.Errorf("%s (%s): route %d, want %d", tc.name, tc.path, got, tc.want)
		}
	}
}

// A workspace no longer followed (its directory deleted, its record still
// there) leaves nothing behind in the followed paths: they hold only what
// followed workspaces list.
func TestAWorkspaceGoneLeavesNoFollowedPaths(t *testing.T) {
	h := newHome(t)
	const a = "aaaaaaaa-8888-4888-8888-0000000000a1"
	dir, pa := h.session("gone", a)
	h.write(pa, prompt(a, "hello"))
	r := h.start()
	id := r.waitPrompt(t, dir, "hello")
	followed := func() int {
		r.eng.mu.RLock()
		defer r.eng.mu.RUnlock()
		return len(r.eng.followedPaths)
	}
	if n := followed(); n != 1 {
		t.Fatalf("%d followed paths with one record followed", n)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the workspace gone", func() bool {
		_, ok := r.eng.Workspace(id)
		return !ok
	})
	if n := followed(); n != 0 {
		t.Errorf("%d followed paths once the workspace is gone", n)
	}
}
