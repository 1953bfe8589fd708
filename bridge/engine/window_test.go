package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// TestOnlyRecentTranscriptsAreSessions: in a plain project every transcript
// written within the active window is a live session, and an older one is
// not, until it is written to again.
func TestOnlyRecentTranscriptsAreSessions(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("window")
	const old, a, b = "0d0d0d0d-0000-4000-8000-0000000000d0", "aaaaaaaa-0000-4000-8000-0000000000a0", "bbbbbbbb-0000-4000-8000-0000000000b0"
	for _, id := range []string{old, a, b} {
		cwdOf[id] = dir
		h.write(filepath.Join(proj, id+".jsonl"), prompt(id, "hello from "+id[:8]))
	}
	// Last written an hour ago, well outside the 10-minute window.
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(proj, old+".jsonl"), hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	r := h.start()
	id := r.waitWorkspace(t, dir)
	ids := func() []string {
		in, _ := r.eng.Workspace(id)
		var out []string
		for _, s := range in.Sessions {
			out = append(out, s.SessionID)
		}
		slices.Sort(out)
		return out
	}
	waitFor(t, "the two recent sessions", func() bool { return slices.Equal(ids(), []string{a, b}) })
	r.eng.Rescan(context.Background())
	time.Sleep(200 * time.Millisecond) // a rescan must not bring the old one in either
	if got := ids(); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("sessions %v, want only the recent %v", got, []string{a, b})
	}

	// The old session is resumed: written again, it is live again.
	h.write(filepath.Join(proj, old+".jsonl"), prompt(old, "back again"))
	r.eng.Rescan(context.Background())
	waitFor(t, "the resumed session", func() bool { return slices.Equal(ids(), []string{old, a, b}) })
	r.collect(t, id, 0, has(event.User, "back again"))
}

// TestNewestFileOnlyWhereNoIDIsKnown: a workspace whose sessions are known
// by no id shows its newest transcript however old; one whose tabs are
// known by id follows those, and not an old file beside them (a hidden
// tab's) just because it is the newest.
func TestNewestFileOnlyWhereNoIDIsKnown(t *testing.T) {
	hourAgo := time.Now().Add(-time.Hour)
	old := func(t *testing.T, path string, at time.Time) {
		if err := os.Chtimes(path, at, at); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("plain project", func(t *testing.T) {
		h := newHome(t)
		const a = "aaaaaaaa-0000-4000-8000-0000000000a1"
		dir, p := h.session("plain", a)
		h.write(p, prompt(a, "long ago"))
		old(t, p, hourAgo)
		r := h.start()
		r.waitPrompt(t, dir, "long ago")
	})
	t.Run("tabs known by id", func(t *testing.T) {
		h := newHome(t)
		const a, hidden = "aaaaaaaa-0000-4000-8000-0000000000a2", "bbbbbbbb-0000-4000-8000-0000000000b2"
		dir, pa, ph := h.twoSessions("tabs", a, hidden)
		h.write(pa, prompt(a, "the tab"))
		h.write(ph, prompt(hidden, "the hidden tab"))
		old(t, pa, hourAgo.Add(-time.Hour))
		old(t, ph, hourAgo) // newer than the tab's, and still long ago
		// Conductor knows the tab before the bridge starts: its first scan
		// must already see it (set after the start, a scan could run first
		// and take the newest file, the hidden one).
		ts := &tabScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}}
		ts.set(dir, discover.Session{ID: a, ConductorID: "tab-a", Agent: "claude", Active: true, Transcript: pa})
		r := h.startWith(func(c *Config) { c.Scanner = ts })
		id := r.waitWorkspace(t, dir)
		evs := r.collect(t, id, 0, has(event.User, "the tab"))
		r.eng.Rescan(context.Background())
		time.Sleep(200 * time.Millisecond)
		in, _ := r.eng.Workspace(id)
		if len(in.Sessions) != 1 || in.Sessions[0].SessionID != a {
			t.Errorf("sessions %+v, want only the tab", in.Sessions)
		}
		for _, e := range evs {
			if e.SessionID == hidden {
				t.Errorf("the hidden tab's file streamed: %+v", e)
			}
		}
	})
}

// TestPermissionPromptSurvivesARestart: a hook's word that the agent waits
// for permission is not in its transcript, so the journal keeps it: after
// a restart the session still needs input, until the agent moves on.
func TestPermissionPromptSurvivesARestart(t *testing.T) {
	h := newHome(t)
	const a = "aaaaaaaa-0000-4000-8000-0000000000a3"
	dir, pa := h.session("asks", a)
	h.write(pa, prompt(a, "deploy it"),
		`{"type":"assistant","sessionId":"`+a+`","cwd":"`+dir+`","requestId":"r-t","message":{"id":"mt","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make deploy"}}]}}`)
	asking := func(r *running, id string) bool {
		in, _ := r.eng.Workspace(id)
		s, ok := sessionOf(in, a)
		return ok && s.Status == event.StateNeedsInput && s.Reason == "permission_prompt"
	}
	r := h.start()
	id := r.waitWorkspace(t, dir)
	r.collect(t, id, 0, has(event.ToolUse, ""))
	r.eng.NeedsInput(context.Background(), id, Call{SessionID: a, TranscriptPath: pa, Cwd: dir}, "permission_prompt")
	waitFor(t, "the permission prompt", func() bool { return asking(r, id) })
	r.stop()

	r2 := h.start()
	id2 := r2.waitWorkspace(t, dir)
	waitFor(t, "the permission prompt after a restart", func() bool { return asking(r2, id2) })
	// Answered: the tool ran, the agent moved on.
	h.write(pa, `{"type":"user","sessionId":"`+a+`","cwd":"`+dir+`","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"deployed"}]}}`)
	waitFor(t, "working again", func() bool {
		in, _ := r2.eng.Workspace(id2)
		s, _ := sessionOf(in, a)
		return s.Status == event.StateWorking
	})
}
