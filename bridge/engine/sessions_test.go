package engine

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// tabScanner is a real discover.Scanner whose answer a test dresses with
// what Conductor's database would say about each session (tabs, statuses).
type tabScanner struct {
	inner *discover.Scanner
	mu    sync.Mutex
	tabs  map[string][]discover.Session // by directory
}

func (s *tabScanner) Scan(ctx context.Context) ([]discover.Workspace, error) {
	list, err := s.inner.Scan(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range list {
		if tabs, ok := s.tabs[list[i].Directory]; ok {
			list[i].Sessions = append([]discover.Session(nil), tabs...)
			list[i].Source = discover.SourceConductorDB
		}
	}
	return list, err
}

func (s *tabScanner) set(dir string, tabs ...discover.Session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tabs == nil {
		s.tabs = make(map[string][]discover.Session)
	}
	s.tabs[dir] = tabs
}

func (h *home) startTabs() (*running, *tabScanner) {
	ts := &tabScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}}
	r := h.startWith(func(c *Config) { c.Scanner = ts })
	return r, ts
}

// waitFor polls cond for five seconds; on a time-out it runs explain
// (if given) before failing, so the failure shows what was seen.
func waitFor(t *testing.T, what string, cond func() bool, explain ...func()) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			for _, f := range explain {
				f()
			}
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sessionOf(in Info, id string) (SessionInfo, bool) {
	for _, s := range in.Sessions {
		if s.SessionID == id {
			return s, true
		}
	}
	return SessionInfo{}, false
}

// Two tabs writing in turn stream under their own session ids in one id
// sequence, with no session event between them (no flip), each turn
// priced and counted on its own.
func TestTwoTabsStreamUnderTheirOwnSessionIDs(t *testing.T) {
	h := newHome(t)
	const a, b = "aaaaaaaa-1111-4111-8111-000000000001", "bbbbbbbb-2222-4222-8222-000000000002"
	dir, pa, pb := h.twoSessions("tabs", a, b)
	h.write(pa, prompt(a, "A1"))
	h.write(pb, prompt(b, "B1"))
	r := h.start()
	id := r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, func(evs []event.Event) bool { return has(event.User, "A1")(evs) && has(event.User, "B1")(evs) })
	last := evs[len(evs)-1].ID
	starts := 0
	for _, e := range evs {
		if e.Type == event.Session {
			starts++
			if e.Reason != SessionStart {
				t.Errorf("session event reason %q, want start", e.Reason)
			}
		}
	}
	if starts != 2 {
		t.Errorf("%d session events for two sessions: %s", starts, summary(evs))
	}

	h.write(pa, answer(a, "ma", "A-done", "end_turn"))
	h.write(pb, `{"type":"assistant","sessionId":"`+b+`","cwd":"`+dir+`","requestId":"r-mb","timestamp":"2026-01-01T00:00:02Z","message":{"id":"mb","model":"claude-opus-4-6","stop_reason":"end_turn","usage":{"input_tokens":1000,"output_tokens":100},"content":[{"type":"text","text":"B-done"}]}}`)
	h.write(pa, prompt(a, "A2"))
	evs = r.collect(t, id, last, func(evs []event.Event) bool {
		return countTurns(evs, "") == 2 && has(event.User, "A2")(evs)
	})
	for _, e := range evs {
		switch {
		case e.Type == event.Session:
			t.Errorf("a session event between two live sessions' lines: %s", summary(evs))
		case e.SessionID != a && e.SessionID != b:
			t.Errorf("event %d has session %q", e.ID, e.SessionID)
		case e.Type == event.Assistant && e.Content == "A-done" && e.SessionID != a,
			e.Type == event.Assistant && e.Content == "B-done" && e.SessionID != b:
			t.Errorf("event %d under the wrong session: %+v", e.ID, e)
		}
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].ID <= evs[i-1].ID {
			t.Fatalf("ids not increasing: %s", summary(evs))
		}
	}
	// Each tab's turn is priced on its own. A: Sonnet 4.5, 10 in × $3 + 5
	// out × $15 = $0.000105. B: Opus 4.6, 1000 in × $5 + 100 out × $25 =
	// $0.0075.
	want := map[string]struct {
		in, out int64
		usd     float64
	}{a: {10, 5, 0.000105}, b: {1000, 100, 0.0075}}
	for _, e := range evs {
		if e.Type != event.TurnComplete {
			continue
		}
		w := want[e.SessionID]
		if e.Usage.InputTokens != w.in || e.Usage.OutputTokens != w.out || !e.CostKnown || math.Abs(e.CostUSD-w.usd) > 1e-12 {
			t.Errorf("turn of %s: %+v $%v, want %d in, %d out, $%v", e.SessionID[:8], e.Usage, e.CostUSD, w.in, w.out, w.usd)
		}
	}
	waitFor(t, "A working, B idle", func() bool {
		in, _ := r.eng.Workspace(id)
		sa, _ := sessionOf(in, a)
		sb, _ := sessionOf(in, b)
		return sa.Status == event.StateWorking && sb.Status == event.StateIdle && in.Status == event.StateWorking && len(in.Sessions) == 2
	})
	in, _ := r.eng.Workspace(id)
	if in.SessionID != a {
		t.Errorf("the workspace's session is %s, want the most recently active %s", in.SessionID, a)
	}
	if sa, _ := sessionOf(in, a); sa.LastEventID <= last || !sa.Streamed {
		t.Errorf("session A info: %+v", sa)
	}
}

// Conductor's statuses complete what the transcript says, and the
// workspace shows the most urgent of its sessions.
func TestConductorStatusesAndTheMostUrgentSession(t *testing.T) {
	h := newHome(t)
	const a, b, c = "aaaaaaaa-1111-4111-8111-00000000000a", "bbbbbbbb-2222-4222-8222-00000000000b", "cccccccc-3333-4333-8333-00000000000c"
	dir, pa, pb := h.twoSessions("urgent", a, b)
	h.write(pa, prompt(a, "A"), answer(a, "ma", "done", "end_turn"))
	h.write(pb, prompt(b, "B"), answer(b, "mb", "done", "end_turn"))
	r, ts := h.startTabs()
	ts.set(dir,
		discover.Session{ID: a, ConductorID: "tab-a", Agent: "claude", Title: "Fix login", Active: true, ConductorStatus: "idle", Transcript: pa},
		discover.Session{ID: b, ConductorID: "tab-b", Agent: "claude", Title: "Plan it", ConductorStatus: "needs_plan_response", Transcript: pb},
		discover.Session{ID: c, ConductorID: "tab-c", Agent: "cursor", Title: "Cursor tab", ConductorStatus: "working"},
	)
	r.eng.Rescan(context.Background())
	id := r.waitWorkspace(t, dir)
	waitFor(t, "the plan tab needing input", func() bool {
		in, _ := r.eng.Workspace(id)
		sb, _ := sessionOf(in, b)
		return sb.Status == event.StateNeedsInput && sb.Reason == "plan" && in.Status == event.StateNeedsInput && in.Reason == "plan"
	})
	in, _ := r.eng.Workspace(id)
	if len(in.Sessions) != 3 || in.Sessions[0].SessionID != a || in.SessionID != a {
		t.Fatalf("sessions (active tab first): %+v", in.Sessions)
	}
	if sa := in.Sessions[0]; sa.Title != "Fix login" || sa.ConductorID != "tab-a" || !sa.Active || sa.Status != event.StateIdle {
		t.Errorf("active tab: %+v", sa)
	}
	sc, _ := sessionOf(in, c)
	if sc.Streamed || sc.Status != event.StateWorking || sc.Agent != "cursor" {
		t.Errorf("a tab of an agent the bridge cannot read is listed with Conductor's status: %+v", sc)
	}

	// The plan is answered; now the active tab asks a question through
	// Conductor's tool: needs input, reason question, from the transcript.
	ts.set(dir,
		discover.Session{ID: a, ConductorID: "tab-a", Agent: "claude", Active: true, ConductorStatus: "idle", Transcript: pa},
		discover.Session{ID: b, ConductorID: "tab-b", Agent: "claude", ConductorStatus: "idle", Transcript: pb},
	)
	h.write(pa, prompt(a, "next"),
		`{"type":"assistant","sessionId":"`+a+`","cwd":"`+dir+`","requestId":"r-q","message":{"id":"mq","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"tool_use","id":"tq","name":"mcp__conductor__AskUserQuestion","input":{"question":"which one?"}}]}}`)
	r.eng.Rescan(context.Background())
	waitFor(t, "the question", func() bool {
		in, _ := r.eng.Workspace(id)
		sa, _ := sessionOf(in, a)
		sb, _ := sessionOf(in, b)
		return sa.Status == event.StateNeedsInput && sa.Reason == "question" && sb.Status == event.StateIdle && len(in.Sessions) == 2
	})
	evs := r.collect(t, id, 0, func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Type == event.Status && e.SessionID == a && e.Reason == "question" {
				return true
			}
		}
		return false
	})
	_ = evs
}

// A tab resumed under a new id is followed across the change: its old
// session ends, the new one starts, and the new file's lines stream.
func TestTabResumedUnderANewID(t *testing.T) {
	h := newHome(t)
	const old, fresh = "aaaaaaaa-1111-4111-8111-0000000000a1", "aaaaaaaa-1111-4111-8111-0000000000a2"
	dir, po, pf := h.twoSessions("resume", old, fresh)
	h.write(po, prompt(old, "before"), answer(old, "m1", "ok", "end_turn"))
	r, ts := h.startTabs()
	ts.set(dir, discover.Session{ID: old, ConductorID: "tab", Agent: "claude", Active: true, Transcript: po})
	r.eng.Rescan(context.Background())
	id := r.waitPrompt(t, dir, "before")
	// The tab is switched only once the workspace has taken the scan that
	// names the old session as the tab's: its events come from the
	// transcript alone, and a later picture stored before the workspace
	// took this one replaces it unseen (the old session then never was
	// the tab's, and is followed on as a recent session of its own).
	waitFor(t, "the old session listed as the tab's", func() bool {
		in, _ := r.eng.Workspace(id)
		s, _ := sessionOf(in, old)
		return s.ConductorID == "tab"
	})

	h.write(pf, prompt(fresh, "after"))
	ts.set(dir, discover.Session{ID: fresh, ConductorID: "tab", Agent: "claude", Active: true, Transcript: pf})
	r.eng.Rescan(context.Background())
	evs := r.collect(t, id, 0, func(evs []event.Event) bool {
		ended := false
		for _, e := range evs {
			ended = ended || (e.Type == event.Session && e.SessionID == old && e.Reason == SessionEnd)
		}
		return ended && has(event.User, "after")(evs)
	})
	for _, e := range evs {
		if e.Type == event.User && e.Content == "after" && e.SessionID != fresh {
			t.Errorf("the resumed tab's line came under %s", e.SessionID)
		}
	}
	var last Info
	waitFor(t, "one session listed", func() bool {
		last, _ = r.eng.Workspace(id)
		return len(last.Sessions) == 1 && last.Sessions[0].SessionID == fresh && last.Sessions[0].ConductorID == "tab"
	}, func() { t.Logf("sessions: %+v", last.Sessions) })
}

// Hooks are routed to the session they come from: a Stop hook ends that
// session's turn only, and a notification marks only it.
func TestHooksActOnTheirOwnSession(t *testing.T) {
	h := newHome(t)
	const a, b = "aaaaaaaa-1111-4111-8111-0000000000b1", "bbbbbbbb-1111-4111-8111-0000000000b2"
	dir, pa, pb := h.twoSessions("hooks", a, b)
	// 2.0-style lines: no final stop reason, so only the hook (or a
	// quiet spell, set long here) ends a turn.
	h.write(pa, prompt(a, "A"), answer(a, "ma", "A-answer", ""))
	h.write(pb, prompt(b, "B"), answer(b, "mb", "B-answer", ""))
	r := h.startWith(func(c *Config) { c.QuietAfter = time.Hour })
	id := r.waitWorkspace(t, dir)
	r.collect(t, id, 0, func(evs []event.Event) bool {
		return has(event.Assistant, "A-answer")(evs) && has(event.Assistant, "B-answer")(evs)
	})
	ctx := context.Background()
	if ws, ok := r.eng.Place(Call{SessionID: b}); !ok || ws != id {
		t.Fatalf("Place by session: %q %v", ws, ok)
	}
	r.eng.TurnEnded(ctx, id, Call{SessionID: b, TranscriptPath: pb, Cwd: dir})
	r.eng.NeedsInput(ctx, id, Call{SessionID: a, Cwd: dir}, "permission_prompt")
	in, _ := r.eng.Workspace(id)
	sa, _ := sessionOf(in, a)
	sb, _ := sessionOf(in, b)
	if sa.Status != event.StateNeedsInput || sa.Reason != "permission_prompt" || sb.Status != event.StateIdle {
		t.Fatalf("A %s/%s, B %s", sa.Status, sa.Reason, sb.Status)
	}
	evs := r.collect(t, id, 0, has(event.TurnComplete, ""))
	for _, e := range evs {
		if e.Type == event.TurnComplete && e.SessionID != b {
			t.Errorf("the Stop hook of B ended %s's turn", e.SessionID)
		}
	}
	if v := r.eng.AgentVersion(id, a); v != "" {
		t.Errorf("no version written, got %q", v)
	}
}

// A session that a hook names before any listing saw it (its first hook
// call races the folder listing) is adopted at once, but only from the
// workspace's own transcript folder.
func TestHookAdoptsANewSession(t *testing.T) {
	h := newHome(t)
	const a, b = "aaaaaaaa-1111-4111-8111-0000000000c1", "bbbbbbbb-1111-4111-8111-0000000000c2"
	dir, pa, pb := h.twoSessions("adopt", a, b)
	h.write(pa, prompt(a, "first"))
	r := h.startWith(func(c *Config) { c.SweepEvery = time.Hour; c.ScanEvery = time.Hour; f := false; c.WatchDirs = &f })
	id := r.waitPrompt(t, dir, "first")
	h.write(pb, prompt(b, "second tab"))
	outside := filepath.Join(t.TempDir(), b+".jsonl")
	os.WriteFile(outside, []byte(prompt(b, "not here")+"\n"), 0o644)
	r.eng.NeedsInput(context.Background(), id, Call{SessionID: b, TranscriptPath: outside}, "x")
	if in, _ := r.eng.Workspace(id); len(in.Sessions) != 1 {
		t.Fatalf("a transcript outside the workspace's folder was adopted: %+v", in.Sessions)
	}
	r.eng.NeedsInput(context.Background(), id, Call{SessionID: b, TranscriptPath: pb}, "idle_prompt")
	evs := r.collect(t, id, 0, has(event.User, "second tab"))
	if s := summary(evs); strings.Contains(s, "not here") {
		t.Errorf("read a foreign file: %s", s)
	}
}

// A permission_prompt Notification in a session whose process was started
// with --permission-prompt-tool stdio (a Conductor tab) is not a reason for
// needs_input; the same in a tab without that flag, or a plain claude run,
// is.
func TestPermissionPromptInConductorTabIsNotNeedsInput(t *testing.T) {
	for _, tt := range []struct {
		name      string
		conductor bool
		stdio     bool
		want      string
	}{
		{"conductor tab with stdio prompts", true, true, event.StateIdle},
		{"conductor tab, process not found", true, false, event.StateNeedsInput},
		{"plain run", false, false, event.StateNeedsInput},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			const a = "aaaaaaaa-2222-4222-8222-0000000000c1"
			dir, pa := h.session("perm", a)
			h.write(pa, prompt(a, "A"), answer(a, "ma", "A-answer", ""))
			r, ts := h.startTabs()
			if tt.conductor {
				ts.set(dir, discover.Session{ID: a, ConductorID: "tab-1", Agent: "claude", Transcript: pa, Active: true, StdioPrompts: tt.stdio})
			}
			id := r.waitWorkspace(t, dir)
			r.collect(t, id, 0, has(event.Assistant, "A-answer"))
			if tt.conductor {
				waitFor(t, "the tab's row", func() bool {
					in, _ := r.eng.Workspace(id)
					s, _ := sessionOf(in, a)
					return s.ConductorID == "tab-1"
				})
			}
			r.eng.TurnEnded(context.Background(), id, Call{SessionID: a, TranscriptPath: pa, Cwd: dir})
			r.eng.NeedsInput(context.Background(), id, Call{SessionID: a, TranscriptPath: pa, Cwd: dir}, "permission_prompt")
			in, _ := r.eng.Workspace(id)
			if s, _ := sessionOf(in, a); s.Status != tt.want {
				t.Errorf("status %s/%s, want %s", s.Status, s.Reason, tt.want)
			}
		})
	}
}

// A Conductor tab listed before Claude Code wrote its transcript (the
// scan had no file to confirm it) is still that tab once the file appears
// and the folder's listing finds it, without waiting for another scan.
func TestTabWhoseTranscriptAppearsAfterTheScan(t *testing.T) {
	h := newHome(t)
	const other, late = "bbbbbbbb-1111-4111-8111-0000000000b1", "bbbbbbbb-1111-4111-8111-0000000000b2"
	dir, pother, plate := h.twoSessions("late", other, late)
	h.write(pother, prompt(other, "first"))
	r, ts := h.startTabs()
	ts.set(dir, discover.Session{ID: late, ConductorID: "tab-late", Title: "Late tab", Agent: "claude", Active: true})
	r.eng.Rescan(context.Background())
	id := r.waitPrompt(t, dir, "first")

	h.write(plate, prompt(late, "hello"))
	r.collect(t, id, 0, has(event.User, "hello"))
	var last Info
	waitFor(t, "the late tab listed as Conductor's", func() bool {
		last, _ = r.eng.Workspace(id)
		s, ok := sessionOf(last, late)
		return ok && s.ConductorID == "tab-late" && s.Title == "Late tab" && s.Active
	}, func() { t.Logf("sessions: %+v", last.Sessions) })
}
