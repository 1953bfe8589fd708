package engine

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/eventtest"
)

// tableScanner is a scan with a process table of its own, as the app's
// agentScanner reads the real one: the directories a live agent process
// runs in, or no table at all when it cannot be read. Like the real one,
// it answers from what its last scan read.
type tableScanner struct {
	inner Scanner

	mu       sync.Mutex
	readable bool
	running  map[string]bool // directories with a live agent process now
	read     map[string]bool // running, as the last scan read it
	at       time.Time       // when the last scan began

	asks  atomic.Int64 // Unowned calls answered from a readable table
	scans atomic.Int64
}

func newTableScanner(projects string, readable bool, running ...string) *tableScanner {
	s := &tableScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: projects}}}, readable: readable}
	s.set(running...)
	return s
}

// set makes the table list agents running in dirs, and nothing else.
func (s *tableScanner) set(dirs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = make(map[string]bool)
	for _, d := range dirs {
		s.running[d] = true
	}
}

func (s *tableScanner) Scan(ctx context.Context) ([]discover.Workspace, error) {
	at := time.Now()
	ws, err := s.inner.Scan(ctx)
	s.mu.Lock()
	s.at = at
	s.read = maps.Clone(s.running)
	s.mu.Unlock()
	s.scans.Add(1)
	return ws, err
}

func (s *tableScanner) Unowned(dir, id, agent string) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.readable {
		return time.Time{}, false
	}
	s.asks.Add(1)
	return s.at, !s.read[dir]
}

// openTurnWrittenBefore writes session s of a new workspace with a turn
// left open mid-tool, last written a minute ago: its agent died before
// the bridge could see it.
func openTurnWrittenBefore(t *testing.T, h *home, name, s string) (dir, path string) {
	t.Helper()
	dir, proj := h.workspace(name)
	cwdOf[s] = dir
	path = filepath.Join(proj, s+".jsonl")
	h.write(path, prompt(s, "run the slow build"), answer(s, "m1", "running it", "tool_use"))
	ago := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, ago, ago); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// An open turn whose agent was already dead when the bridge started ends
// as a dead agent's does once a scan that read the whole process table
// found no agent process that can be its writer: one turn_complete marked
// interrupted with its tokens, then idle, long before OrphanAfter (an hour
// here). A live agent in its folder, or a table that could not be read,
// keeps it open. Failed before: every such turn waited OrphanAfter.
func TestATurnWhoseAgentDiedBeforeTheStartEnds(t *testing.T) {
	for _, tt := range []struct {
		name     string
		readable bool
		agentIn  bool // a live agent process runs in the workspace's folder
		ends     bool
	}{
		{"no agent process can be its writer", true, false, true},
		{"a live agent in its folder", true, true, false},
		{"the process table cannot be read", false, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const s = "aaaaaaaa-8888-4888-8888-0000000000a1"
			h := newHome(t)
			dir, _ := openTurnWrittenBefore(t, h, "dead", s)
			var running []string
			if tt.agentIn {
				running = append(running, dir)
			}
			ts := newTableScanner(h.projects, tt.readable, running...)
			r := h.startWith(func(c *Config) {
				c.Scanner = ts
				c.OrphanAfter = time.Hour
			})
			id := r.waitWorkspace(t, dir)
			if !tt.ends {
				// Many looks for its agent, each with a table read after
				// the record's last write where there is one: still working.
				waitFor(t, "looks for the turn's agent", func() bool { return r.eng.reaps.Load() >= 5 && (!tt.readable || ts.asks.Load() >= 5) })
				evs := r.collect(t, id, 0, has(event.Status, event.StateWorking))
				if has(event.TurnComplete, "")(evs) {
					t.Errorf("the turn ended: %s", summary(evs))
				}
				if in, _ := r.eng.Workspace(id); in.Status != event.StateWorking {
					t.Errorf("workspace %s, want working", in.Status)
				}
				return
			}
			evs := r.collect(t, id, 0, func(evs []event.Event) bool {
				return has(event.TurnComplete, "")(evs) && eventtest.LastStatus(evs, s) == event.StateIdle
			})
			oneInterruptedTurn(t, evs, s)
			waitFor(t, "the workspace idle", func() bool { in, _ := r.eng.Workspace(id); return in.Status == event.StateIdle })
		})
	}
}

// A turn held open because a live agent process in its folder may be its
// writer ends once that process exits, though no scan timer would look
// again for an hour: the held turn asks for a fresh table. Failed
// before: the turn stayed open until the scan timer's next turn (backed
// off to minutes while nothing changes).
func TestATurnHeldByALiveAgentEndsOnceItExits(t *testing.T) {
	const s = "aaaaaaaa-8888-4888-8888-0000000000b1"
	h := newHome(t)
	dir, _ := openTurnWrittenBefore(t, h, "held", s)
	ts := newTableScanner(h.projects, true, dir)
	r := h.startWith(func(c *Config) {
		c.Scanner = ts
		c.ScanEvery = time.Hour
		c.OrphanAfter = time.Hour
	})
	id := r.waitWorkspace(t, dir)
	// Past the start's own scans (the first, and the one its folders'
	// watches ask for), each looking at a table with the agent in it.
	waitFor(t, "a second scan", func() bool { return ts.scans.Load() >= 2 })
	asks := ts.asks.Load()
	waitFor(t, "looks for the turn's agent", func() bool { return ts.asks.Load() >= asks+2 })
	evs := r.collect(t, id, 0, has(event.Status, event.StateWorking))
	if has(event.TurnComplete, "")(evs) {
		t.Fatalf("the turn ended with an agent in its folder: %s", summary(evs))
	}
	ts.set() // the agent in its folder exits
	evs = r.collect(t, id, 0, func(evs []event.Event) bool {
		return has(event.TurnComplete, "")(evs) && eventtest.LastStatus(evs, s) == event.StateIdle
	})
	oneInterruptedTurn(t, evs, s)
}

// A turn open in the journal stays open across a restart while its agent
// lives in its folder; once the agent has died while the bridge was down,
// the turn ends promptly after the next restart, and only once: a further
// restart publishes no second turn_complete and shows the session idle.
// Failed before: the first restart ended the live agent's turn at once
// (a session resumed from the journal with nothing read since looked
// quiet for ages), and with that fixed, the dead agent's turn waited
// OrphanAfter.
func TestATurnWhoseAgentDiedWhileTheBridgeWasDownEndsOnce(t *testing.T) {
	const s = "aaaaaaaa-9999-4999-8999-0000000000a1"
	h := newHome(t)
	dir, _ := openTurnWrittenBefore(t, h, "down", s)
	ts := newTableScanner(h.projects, true, dir)
	tune := func(c *Config) {
		c.Scanner = ts
		c.OrphanAfter = time.Hour
	}
	var id string
	seen := int64(0)
	for _, restart := range []string{"first start", "restart, the agent alive"} {
		r := h.startWith(tune)
		id = r.waitWorkspace(t, dir)
		asks := ts.asks.Load()
		waitFor(t, "looks for the live agent's turn after the "+restart, func() bool { return ts.asks.Load() >= asks+3 })
		evs := r.collect(t, id, 0, has(event.Status, event.StateWorking))
		if has(event.TurnComplete, "")(evs) || eventtest.LastStatus(evs, s) != event.StateWorking {
			t.Fatalf("%s: the live agent's turn ended: %s", restart, summary(evs))
		}
		seen = evs[len(evs)-1].ID
		r.stop()
	}

	ts.set() // the agent died while the bridge was down
	r := h.startWith(tune)
	r.waitWorkspace(t, dir)
	evs := r.collect(t, id, seen, func(evs []event.Event) bool {
		return has(event.TurnComplete, "")(evs) && eventtest.LastStatus(evs, s) == event.StateIdle
	})
	oneInterruptedTurn(t, evs, s)
	seen = evs[len(evs)-1].ID
	r.stop()

	asks := ts.asks.Load()
	r = h.startWith(tune)
	r.waitWorkspace(t, dir)
	waitFor(t, "the session read after the last restart", func() bool { return !r.readAt(id).IsZero() })
	reaps, scans := r.eng.reaps.Load(), ts.scans.Load()
	// Three scans, run here: a start that finds all at rest backs the
	// scan timer off (idleStart), so the timer's would be long in coming.
	for range 3 {
		r.eng.Rescan(context.Background())
	}
	if ts.scans.Load() < scans+3 {
		t.Fatalf("%d scans after the read, want 3", ts.scans.Load()-scans)
	}
	in, _ := r.eng.Workspace(id)
	si, _ := sessionOf(in, s)
	if in.Status != event.StateIdle || si.Status != event.StateIdle {
		t.Errorf("after the last restart: workspace %s, session %s; want idle", in.Status, si.Status)
	}
	if r.eng.reaps.Load() != reaps || ts.asks.Load() != asks {
		t.Errorf("the ended turn was looked at again after the last restart")
	}
	topic, _ := r.eng.Topic(id)
	replay, _, sub := topic.Subscribe(seen)
	topic.Unsubscribe(sub)
	for _, it := range replay {
		if e := it.Event(); e.Type == event.TurnComplete {
			t.Errorf("a second turn_complete after the last restart: %+v", e)
		}
	}
}

// oneInterruptedTurn checks evs hold one turn_complete of session s,
// marked interrupted, with the tokens the record gave (10 in, 5 out),
// priced.
func oneInterruptedTurn(t *testing.T, evs []event.Event, s string) {
	t.Helper()
	n := 0
	for _, e := range evs {
		if e.Type != event.TurnComplete {
			continue
		}
		n++
		if e.SessionID != s || !e.Interrupted || e.Usage.InputTokens != 10 || e.Usage.OutputTokens != 5 || !e.CostKnown || e.CostUSD <= 0 {
			t.Errorf("turn_complete %+v", e)
		}
	}
	if n != 1 {
		t.Errorf("%d turn_completes: %s", n, summary(evs))
	}
}
