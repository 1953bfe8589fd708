//go:build linux || darwin

package engine

import (
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/agenttest"
)

// An agent killed right after its last line — before its record has been
// quiet for QuietAfter, so before the engine's first look for a gone agent
// — still ends its turn: interrupted, with its tokens, within QuietAfter of
// quiet, not OrphanAfter. The engine notes the agent while it lives, from
// whichever word it has: the scan's agent of the workspace, or a hook's pid
// told before the turn's lines or while the turn is open. Failed before:
// the pid was noted only at that first look, by when the agent was gone,
// so the turn stayed working (for OrphanAfter, an hour here).
func TestAnAgentKilledRightAfterItsLastLineEndsItsTurn(t *testing.T) {
	for _, tt := range []struct {
		name string
		scan bool // the scan places the agent in the workspace
		hook int  // 0: no hook; 1: a hook's pid before the turn; 2: while it is open
	}{
		{"the scan's agent", true, 0},
		{"a hook's pid before the turn", false, 1},
		{"a hook's pid while the turn is open", false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const s = "aaaaaaaa-7777-4777-8777-0000000000a1"
			quiet := 2 * time.Second
			h := newHome(t)
			dir, path := h.session("early", s)
			agent, _ := agenttest.StartAs(t, "claude", "")
			pid := agent.Process.Pid
			ps := &pidScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}, dir: dir}
			if tt.scan {
				ps.pid.Store(int64(pid))
			}
			r := h.startWith(func(c *Config) {
				c.Scanner = ps
				c.QuietAfter = quiet
				c.OrphanAfter = time.Hour
			})
			h.write(path, prompt(s, "before the turn"), answer(s, "m0", "ready", "end_turn"))
			id, _ := r.firstTurn(t, dir)
			if tt.hook == 1 {
				r.eng.AgentPID(id, Call{SessionID: s, PID: pid}, true)
				waitFor(t, "the hook's pid in the listing", func() bool { return r.sessionPID(id, s) == pid })
			}
			h.write(path, prompt(s, "run the slow build"), answer(s, "m1", "running it", "tool_use"))
			evs := r.collect(t, id, 0, has(event.Status, event.StateWorking))
			last := evs[len(evs)-1].ID
			if tt.hook == 2 {
				r.eng.AgentPID(id, Call{SessionID: s, PID: pid}, true)
				waitFor(t, "the hook's pid in the listing", func() bool { return r.sessionPID(id, s) == pid })
			}
			t.Logf("looks for gone agents before the kill: %d (the test proves the fix only when none)", r.eng.reaps.Load())
			agent.Process.Kill()
			agent.Wait()
			ps.pid.Store(0) // the scan no longer finds it
			evs = r.collect(t, id, last, func(evs []event.Event) bool {
				return has(event.TurnComplete, "")(evs) && has(event.Status, event.StateIdle)(evs)
			})
			n := 0
			for _, e := range evs {
				if e.Type != event.TurnComplete {
					continue
				}
				n++
				if !e.Interrupted || e.Usage.InputTokens != 10 || e.Usage.OutputTokens != 5 || !e.CostKnown || e.CostUSD <= 0 {
					t.Errorf("turn_complete %+v", e)
				}
			}
			if n != 1 {
				t.Errorf("%d turn_completes: %s", n, summary(evs))
			}
			waitFor(t, "the workspace idle", func() bool { in, _ := r.eng.Workspace(id); return in.Status == event.StateIdle })
		})
	}
}

// sessionPID is the pid the listing of workspace id gives session s.
func (r *running) sessionPID(id, s string) int {
	in, _ := r.eng.Workspace(id)
	si, _ := sessionOf(in, s)
	return si.PID
}
