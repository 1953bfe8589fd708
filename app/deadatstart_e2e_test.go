package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/proc"
	"conductorbridge/testkit/agenttest"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/eventtest"
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
	for _, tt := range killedWhileDownCases() {
		t.Run(tt.name, func(t *testing.T) {
			e := newAgentEnv(t)
			g := agenttest.NewGate(t.TempDir())
			t.Cleanup(func() { g.Open() }) // the killed agent's tool runs on
			fm := fakemodel.NewTest(t,
				fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("First answer.")}, Usage: fakemodel.Usage{InputTokens: 111, OutputTokens: 11}},
				gatedToolTurn(g),
				fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("After the restarts.")}, Usage: fakemodel.Usage{InputTokens: 222, OutputTokens: 22}},
			)
			f := e.firstTurn(fm)
			port, ws, c, last := f.port, f.ws, f.c, f.last
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
			// Claude Code writes its lines a moment after it acts: the
			// tool call is on record before the kill, or the turn on disk
			// is a bare prompt that spent nothing (CI saw it so).
			if err := g.Recorded(ctx, claudeRecord(e.home, session)); err != nil {
				t.Fatal(err)
			}
			if tt.seen {
				evs := c.until(t, time.Minute, func(evs []event.Event) bool {
					n := len(evs)
					return n > 0 && evs[n-1].Type == event.ToolUse && evs[n-1].SessionID == session
				})
				last = evs[len(evs)-1].ID
				e.p.kill(syscall.SIGKILL)
			}
			// Gone, not dying, before the bridge starts: a bridge that saw
			// it still in the process table would end its turn as a known
			// agent's.
			killReaped(ctx, t, s)

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
			after := e.run(fm, "after the restarts")
			c = openStream(t, e.p, ws.ID, tc.ID)
			evs := c.until(t, time.Minute, func(evs []event.Event) bool { return turnOf(evs, after) != nil })
			for _, ev := range evs {
				if ev.SessionID == session && ev.Type != event.Status {
					t.Errorf("the killed session's turn again after another restart: %+v", ev)
				}
			}
			e.p.waitFor(func(w apiWorkspace) bool { return w.ID == ws.ID && sessionIdle(w, session) })
		})
	}
}

// killReaped kills the agent s with SIGKILL and waits until it is reaped:
// gone from the process table, not dying.
func killReaped(ctx context.Context, t *testing.T, s *claudetest.Session) {
	t.Helper()
	if err := syscall.Kill(s.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-ctx.Done():
		t.Fatal("the killed agent was never reaped")
	}
}

// killedWhileDownCase is a turn whose agent is killed while the bridge
// is down.
type killedWhileDownCase struct {
	name string
	seen bool // the bridge streamed the turn's tool call before it went down
}

// killedWhileDownCases are the turns the Claude and the Codex test kill:
// one begun while the bridge was down, one it had already streamed.
func killedWhileDownCases() []killedWhileDownCase {
	return []killedWhileDownCase{
		{"a turn begun while down", false},
		{"a turn open in the journal", true},
	}
}

// claudeRecord is the glob of session's transcript under home.
func claudeRecord(home, session string) string {
	return filepath.Join(home, ".claude", "projects", "*", session+".jsonl")
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

// TestRealClaudeTurnStaysOpenWhileAnAgentRunsInItsFolder: two real Claude
// Code sessions killed with SIGKILL mid-tool while no bridge runs (two
// turns at work, so neither is taken for the workspace's one agent's),
// and another real Claude Code started in the same folder, waiting for
// its first message (no record yet: the bridge cannot place it to any
// session). The bridge starts: it cannot tell that the live agent writes
// neither dead turn, so both stay open, working, until that agent exits
// too; then each ends, interrupted, with its own tokens.
func TestRealClaudeTurnStaysOpenWhileAnAgentRunsInItsFolder(t *testing.T) {
	e := newAgentEnv(t)
	gates := []*agenttest.Gate{agenttest.NewGate(t.TempDir()), agenttest.NewGate(t.TempDir())}
	usages := []fakemodel.Usage{{InputTokens: 1234, OutputTokens: 56}, {InputTokens: 2345, OutputTokens: 67}}
	var turns []fakemodel.Turn
	for i, g := range gates {
		t.Cleanup(func() { g.Open() })
		turns = append(turns, fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Running it."), fakemodel.Bash(g.Command())}, Usage: usages[i]})
	}
	fm := fakemodel.NewTest(t, turns...)
	var sessions []string
	for _, g := range gates {
		ctx, dead := e.session(fm, claudetest.Options{})
		if err := dead.Send("run the gated command"); err != nil {
			t.Fatal(err)
		}
		if err := g.Started(ctx); err != nil {
			t.Fatal(err)
		}
		if err := g.Recorded(ctx, claudeRecord(e.home, dead.SessionID())); err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, dead.SessionID())
		killReaped(ctx, t, dead)
	}
	_, live := e.session(fm, claudetest.Options{})
	waitArgv0Agent(t, live.Pid())

	e.start(0)
	for _, s := range sessions {
		waitLogged(t, e.p, `"session":"`+s+`"`, "a live agent process may be its writer")
	}
	ws := e.workspace()
	c := openStream(t, e.p, ws.ID, 0)
	w := e.workspaceByID(ws.ID)
	for _, s := range sessions {
		if !sessionWorking(w, s) {
			t.Fatalf("session %s ended with an agent in its folder: %+v", s, w)
		}
	}

	endSession(live)
	<-live.Done()
	evs := c.until(t, stoppedTurnBudget, func(evs []event.Event) bool {
		idle := 0
		for _, s := range sessions {
			if eventtest.LastStatus(evs, s) == event.StateIdle {
				idle++
			}
		}
		return idle == len(sessions)
	})
	for i, s := range sessions {
		n := 0
		var tc event.Event
		for _, ev := range evs {
			if ev.Type == event.TurnComplete && ev.SessionID == s {
				tc = ev
				n++
			}
		}
		if n != 1 || !tc.Interrupted || tc.Usage.InputTokens != int64(usages[i].InputTokens) || tc.Usage.OutputTokens != int64(usages[i].OutputTokens) || !tc.CostKnown {
			t.Errorf("session %s: %d turn_completes, the last %+v; want one, interrupted, with %+v", s, n, tc, usages[i])
			continue
		}
		usageAgrees(t, e.home, s, tc)
	}
}

// sessionWorking reports whether w lists session, working.
func sessionWorking(w apiWorkspace, session string) bool {
	for _, s := range w.Sessions {
		if s.SessionID == session {
			return s.Status == event.StateWorking
		}
	}
	return false
}

// waitArgv0Agent waits until the process table shows pid as Claude Code.
func waitArgv0Agent(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if p, _, err := proc.Parent(pid); err == nil && (claude.Agent{}).IsProcess(p.Comm, p.Args) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never showed as Claude Code", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRealCodexKilledWhileTheBridgeWasDown kills a real Codex run (its
// launcher and the agent, with SIGKILL) while its shell call runs and no
// bridge runs (killed with SIGKILL itself), in a turn begun while the
// bridge was down or one it had already streamed. After the start the
// stream shows the turn's end: one turn_complete marked interrupted with
// the tokens the model handed out, the workspace idle, `usage` counting
// the same. Failed before: the bridge had never seen the agent alive, so
// the turn stayed working for 30 minutes.
func TestRealCodexKilledWhileTheBridgeWasDown(t *testing.T) {
	for _, tt := range killedWhileDownCases() {
		t.Run(tt.name, func(t *testing.T) {
			co, g := gatedCodexTurn(t)
			t.Cleanup(func() { g.Open() })
			co.Prompt = "run the long check"
			home, dir := co.Home, co.Dir
			env := []string{codextest.KeyEnv + "=test-key", "PATH=" + filepath.Dir(co.Bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
			port, err := freePort()
			if err != nil {
				t.Fatal(err)
			}
			p := startBridgeWith(t, home, port, env, "--headless")
			if !tt.seen {
				p.kill(syscall.SIGKILL)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd, stderr, done := startCodexRun(t, ctx, co)
			t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			if err := g.Started(ctx); err != nil {
				t.Fatalf("the shell call never ran: %v\n%s", err, stderr.String())
			}
			if err := g.Recorded(ctx, filepath.Join(co.CodexHome(), "sessions", "*", "*", "*", "rollout-*.jsonl")); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			var last int64
			if tt.seen {
				ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.Status == event.StateWorking })
				evs := openStream(t, p, ws.ID, 0).until(t, time.Minute, func(evs []event.Event) bool {
					n := len(evs)
					return n > 0 && evs[n-1].Type == event.ToolUse && evs[n-1].Agent == "codex"
				})
				last = evs[len(evs)-1].ID
				p.kill(syscall.SIGKILL)
			}
			if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done

			p = startBridgeWith(t, home, port, env, "--headless")
			ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && len(w.Sessions) == 1 })
			thread := ws.Sessions[0].SessionID
			tc := stoppedTurnEnds(t, openStream(t, p, ws.ID, last), thread)
			if tc.Usage.InputTokens != 1234 || tc.Usage.OutputTokens != 56 {
				t.Errorf("turn_complete %+v, want 1234 tokens in and 56 out", tc)
			}
			p.waitFor(func(w apiWorkspace) bool {
				return w.ID == ws.ID && w.Status == event.StateIdle && sessionIdle(w, thread)
			})
			usageAgrees(t, home, thread, tc)
		})
	}
}
