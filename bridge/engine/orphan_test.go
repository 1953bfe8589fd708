//go:build linux || darwin

package engine

import (
	"context"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/agenttest"
)

// pidScanner gives the workspace of dir the pid it holds: the agent the
// process table shows running there.
type pidScanner struct {
	inner Scanner
	dir   string
	pid   atomic.Int64
}

func (s *pidScanner) Scan(ctx context.Context) ([]discover.Workspace, error) {
	ws, err := s.inner.Scan(ctx)
	for i := range ws {
		if ws[i].Directory == s.dir {
			ws[i].PID = int(s.pid.Load())
		}
	}
	return ws, err
}

// A turn whose agent is killed mid-tool ends: one turn_complete marked
// interrupted with the tokens already spent, then idle, in the stream and
// in the workspace's status alike. While the agent lives, however quiet,
// the turn stays open; a pid that is alive but not an agent's (reused by
// another program) does not keep it open. Failed on main: the stream's
// last word stayed working.
func TestATurnEndsWhenItsAgentDies(t *testing.T) {
	for _, tt := range []struct {
		name string
		kill bool // killed, or its pid alive but another program's
	}{
		{"killed agent", true},
		{"pid reused by another program", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const s = "aaaaaaaa-4444-4444-8444-0000000000a1"
			a := startAgentAtWork(t, "killed", s)
			r, id, agent := a.r, a.id, a.agent
			// Quiet for many QuietAfters, agent alive: still working, and
			// the looks for its agent read nothing (its record did not
			// change, and the sweep asks again every second).
			waitFor(t, "a reap of the live agent's session", func() bool { return r.eng.reaps.Load() >= 2 })
			readAt := r.readAt(id)
			reaps := r.eng.reaps.Load()
			waitFor(t, "more reaps of the live agent's session", func() bool { return r.eng.reaps.Load() >= reaps+2 })
			if in, _ := r.eng.Workspace(id); in.Status != event.StateWorking {
				t.Fatalf("a live agent's turn ended: %s", in.Status)
			}
			if got := r.readAt(id); !got.Equal(readAt) {
				t.Errorf("looks for a live agent read its session again (read at %v, then %v)", readAt, got)
			}
			if tt.kill {
				agent.Process.Kill()
				agent.Wait()
			} else {
				a.reuse()
			}
			// The turn may have ended before the subscription began (the
			// sweep looks while the pid changes hands): its status event
			// then comes in the same replay, after the turn_complete.
			evs := r.collect(t, id, 0, has(event.TurnComplete, ""))
			var tc event.Event
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					tc = e
				}
			}
			if !tc.Interrupted || tc.Usage.InputTokens != 10 || tc.Usage.OutputTokens != 5 || !tc.CostKnown || tc.CostUSD <= 0 {
				t.Errorf("turn_complete %+v", tc)
			}
			r.collect(t, id, tc.ID, has(event.Status, event.StateIdle))
			waitFor(t, "the workspace idle", func() bool {
				in, _ := r.eng.Workspace(id)
				si, _ := sessionOf(in, s)
				return in.Status == event.StateIdle && si.Status == event.StateIdle
			})
			more := r.collect(t, id, 0, has(event.Status, event.StateIdle))
			if n := countTurns(more, ""); n != 1 {
				t.Errorf("%d turn_completes", n)
			}
		})
	}
}

// A record whose agent was never known (written elsewhere) ends its open
// turn after OrphanAfter of quiet; a turn that spent nothing ends with no
// turn_complete.
func TestAnOrphanTurnEndsAfterItsQuiet(t *testing.T) {
	h := newHome(t)
	const a, b = "aaaaaaaa-5555-4555-8555-0000000000a1", "bbbbbbbb-5555-4555-8555-0000000000b1"
	dir, pa, pb := h.twoSessions("orphan", a, b)
	h.write(pa, prompt(a, "spent"), answer(a, "m1", "working", "tool_use"))
	h.write(pb, prompt(b, "nothing answered"))
	r := h.startWith(func(c *Config) { c.OrphanAfter = 300 * time.Millisecond })
	id := r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, func(evs []event.Event) bool {
		idle := 0
		for _, e := range evs {
			if e.Type == event.Status && e.State == event.StateIdle && e.ID > 0 {
				idle++
			}
		}
		return has(event.TurnComplete, "")(evs) && idle >= 2
	})
	for _, e := range evs {
		if e.Type == event.TurnComplete && (e.SessionID != a || !e.Interrupted || e.Usage.InputTokens != 10) {
			t.Errorf("turn_complete %+v", e)
		}
	}
	waitFor(t, "the workspace idle", func() bool { in, _ := r.eng.Workspace(id); return in.Status == event.StateIdle })
}

// readAt is when workspace id last read its sessions.
func (r *running) readAt(id string) time.Time {
	w, _ := r.eng.followed(id)
	return w.snap.Load().readAt
}

// A live agent noted for one turn is not the agent of the next: once its
// turn ended and it quit, a new turn by an agent not placed yet (a run the
// scan has not found, with no hooks) stays open, however quiet — it ends
// by the orphan rule, not as the old agent's. Interrupted a live turn
// before: the pid noted for the last turn outlived it.
func TestANewTurnIsNotTheLastAgents(t *testing.T) {
	const s = "aaaaaaaa-6666-4666-8666-0000000000a1"
	a := startAgentAtWork(t, "again", s)
	h, r, id, path, agent, ps := a.h, a.r, a.id, a.path, a.agent, a.ps
	waitFor(t, "a look at the live agent's turn", func() bool { return r.eng.reaps.Load() >= 2 })
	h.write(path, answer(s, "m2", "built", "end_turn"))
	evs := r.collect(t, id, 0, has(event.TurnComplete, ""))
	last := evs[len(evs)-1].ID
	agent.Process.Kill()
	agent.Wait()
	ps.pid.Store(0)
	waitFor(t, "the scan to place no agent", func() bool { in, _ := r.eng.Workspace(id); return in.PID == 0 })
	h.write(path, prompt(s, "and the tests"), answer(s, "m3", "running them", "tool_use"))
	r.collect(t, id, last, has(event.Status, event.StateWorking))
	reaps := r.eng.reaps.Load()
	waitFor(t, "looks at the quiet turn", func() bool { return r.eng.reaps.Load() >= reaps+1 })
	waitFor(t, "the engine idle", func() bool { return r.eng.reaps.Load() >= reaps+2 || r.ended(id) })
	for _, e := range r.collect(t, id, last, has(event.Status, event.StateWorking)) {
		if e.Type == event.TurnComplete {
			t.Errorf("the new turn ended as the last agent's: %+v", e)
		}
	}
	if in, _ := r.eng.Workspace(id); in.Status != event.StateWorking {
		t.Errorf("workspace %s, want working", in.Status)
	}
}

// ended reports whether workspace id is no longer at work.
func (r *running) ended(id string) bool {
	in, _ := r.eng.Workspace(id)
	return in.Status != event.StateWorking
}

// agentAtWork is session s of a workspace whose agent, a live process the
// scan places there, has begun a turn that runs a tool: the bridge shows
// it working.
type agentAtWork struct {
	h     *home
	r     *running
	id    string // the workspace
	path  string // the session's transcript
	agent *exec.Cmd
	reuse func() // makes the agent's pid run another program
	ps    *pidScanner
}

func startAgentAtWork(t *testing.T, name, s string) agentAtWork {
	t.Helper()
	h := newHome(t)
	dir, path := h.session(name, s)
	agent, reuse := agenttest.StartAs(t, "claude", "")
	ps := &pidScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}, dir: dir}
	ps.pid.Store(int64(agent.Process.Pid))
	r := h.startWith(func(c *Config) { c.Scanner = ps })
	h.write(path, prompt(s, "run the slow build"), answer(s, "m1", "running it", "tool_use"))
	id := r.waitWorkspace(t, dir)
	r.collect(t, id, 0, has(event.Status, event.StateWorking))
	return agentAtWork{h: h, r: r, id: id, path: path, agent: agent, reuse: reuse, ps: ps}
}
