package main

import (
	"context"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/agenttest"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealClaudeKilledWhileTheBridgeWasDown kills a real Claude Code with
// SIGKILL mid-tool while the bridge is not running (killed with SIGKILL
// itself), then starts the bridge: the agent is dead before the bridge
// can see it, in a turn begun while the bridge was down or one the
// bridge had already streamed (open in its journal). After the start the
// stream shows the turn's end, as the agent's: one turn_complete marked
// interrupted with the tokens the model handed out, the session and the
// workspace idle, `usage` counting the same. Another restart publishes
// no second turn_complete. Failed before: the bridge had never seen the
// agent alive, so the turn stayed working for 30 minutes.
func TestRealClaudeKilledWhileTheBridgeWasDown(t *testing.T) {
	for _, tt := range []struct {
		name string
		seen bool // the bridge streamed the turn's tool call before it went down
	}{
		{"a turn begun while down", false},
		{"a turn open in the journal", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newAgentEnv(t)
			g := agenttest.NewGate(t.TempDir())
			t.Cleanup(func() { g.Open() }) // the killed agent's tool runs on
			fm := fakemodel.NewTest(t,
				fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("First answer.")}, Usage: fakemodel.Usage{InputTokens: 111, OutputTokens: 11}},
				fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Running it."), fakemodel.Bash(g.Command())},
					Usage: fakemodel.Usage{InputTokens: 1234, OutputTokens: 56}},
				fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("After the restarts.")}, Usage: fakemodel.Usage{InputTokens: 222, OutputTokens: 22}},
			)
			run := func(prompt string) string {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				res, err := claudetest.Run(ctx, claudetest.Options{Bin: e.bin, BaseURL: fm.URL(), Home: e.home, Dir: e.dir, Prompt: prompt})
				if err != nil {
					t.Fatalf("claude -p %q: %v\n%s", prompt, err, res.Stderr)
				}
				return res.SessionID
			}
			port, err := freePort()
			if err != nil {
				t.Fatal(err)
			}
			// A first session gives the bridge its workspace and a journal.
			e.start(port)
			first := run("first")
			ws := e.workspace()
			c := openStream(t, e.p, ws.ID, 0)
			evs := c.until(t, time.Minute, func(evs []event.Event) bool { return turnOf(evs, first) != nil })
			last := evs[len(evs)-1].ID
			if !tt.seen {
				e.p.kill(syscall.SIGKILL)
			}

			ctx, s := e.session(fm, claudetest.Options{})
			if err := s.Send("run the gated command"); err != nil {
				t.Fatal(err)
			}
			if err := g.Started(ctx); err != nil {
				t.Fatal(err)
			}
			session := s.SessionID()
			if tt.seen {
				evs := c.until(t, time.Minute, func(evs []event.Event) bool {
					n := len(evs)
					return n > 0 && evs[n-1].Type == event.ToolUse && evs[n-1].SessionID == session
				})
				last = evs[len(evs)-1].ID
				e.p.kill(syscall.SIGKILL)
			}
			if err := syscall.Kill(s.Pid(), syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			// Gone, not dying, before the bridge starts: a bridge that saw
			// it still in the process table would end its turn as a known
			// agent's.
			select {
			case <-s.Done():
			case <-ctx.Done():
				t.Fatal("the killed agent was never reaped")
			}

			e.start(port)
			c = openStream(t, e.p, ws.ID, last)
			tc := stoppedTurnEnds(t, c, session)
			if tc.Usage.InputTokens != 1234 || tc.Usage.OutputTokens != 56 || !tc.CostKnown || tc.CostUSD <= 0 {
				t.Errorf("turn_complete %+v, want 1234 tokens in and 56 out, priced", tc)
			}
			e.p.waitFor(func(w apiWorkspace) bool {
				return w.ID == ws.ID && w.Status == event.StateIdle && sessionIdle(w, session)
			})
			usageAgrees(t, e.home, session, tc)

			// Another restart, and a turn of another session after it: the
			// ended turn is not ended again.
			e.p.kill(syscall.SIGKILL)
			e.start(port)
			after := run("after the restarts")
			c = openStream(t, e.p, ws.ID, tc.ID)
			evs = c.until(t, time.Minute, func(evs []event.Event) bool { return turnOf(evs, after) != nil })
			for _, ev := range evs {
				if ev.SessionID == session && ev.Type != event.Status {
					t.Errorf("the killed session's turn again after another restart: %+v", ev)
				}
			}
			e.p.waitFor(func(w apiWorkspace) bool { return w.ID == ws.ID && sessionIdle(w, session) })
		})
	}
}

// sessionIdle reports whether w lists session, idle.
func sessionIdle(w apiWorkspace, session string) bool {
	for _, s := range w.Sessions {
		if s.SessionID == session {
			return s.Status == event.StateIdle
		}
	}
	return false
}
