package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	usagerep "conductorbridge/bridge/usage"
	"conductorbridge/testkit/agenttest"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// stoppedTurnBudget is how long a test waits for the turn of a stopped
// agent (killed, or stopped by the person) to end: far above the bridge's
// QuietAfter (2 s) and a busy machine's lag, far below OrphanAfter (30
// min), the wait of a turn whose agent the bridge never knew.
const stoppedTurnBudget = 90 * time.Second

// TestRealClaudeKilledRightAfterItsToolCall kills a real Claude Code with
// SIGKILL the moment the bridge streams its tool call, while the tool
// runs: the record stops there, with no stop reason and no hook. The turn
// still ends, as the agent did: one turn_complete marked interrupted with
// the tokens the model reported, the session and workspace idle, and
// `usage` counting the same turn with the same tokens and cost. Failed
// before: the bridge noted the agent's pid only once the record had been
// quiet for 2 s, by when it was gone, so the turn stayed working for 30
// minutes.
func TestRealClaudeKilledRightAfterItsToolCall(t *testing.T) {
	e := newAgentEnv(t)
	g := agenttest.NewGate(t.TempDir())
	fm := fakemodel.NewTest(t, gatedToolTurn(g), fakemodel.Reply(fakemodel.Text("never asked")))
	e.start(0)
	ctx, s := e.session(fm, claudetest.Options{})
	s.Send("run the gated command")
	if err := g.Started(ctx); err != nil {
		t.Fatal(err)
	}
	session := s.SessionID()
	ws := e.workspace()
	c := openStream(t, e.p, ws.ID, 0)
	c.until(t, time.Minute, func(evs []event.Event) bool {
		return len(evs) > 0 && evs[len(evs)-1].Type == event.ToolUse && evs[len(evs)-1].SessionID == session
	})
	if err := syscall.Kill(s.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tc := stoppedTurnEnds(t, c, session)
	if tc.Usage.InputTokens != 1234 || tc.Usage.OutputTokens != 56 || !tc.CostKnown || tc.CostUSD <= 0 {
		t.Errorf("turn_complete %+v, want 1234 tokens in and 56 out, priced", tc)
	}
	e.p.waitFor(func(w apiWorkspace) bool {
		return w.ID == ws.ID && w.Status == event.StateIdle && len(w.Sessions) == 1 && w.Sessions[0].Status == event.StateIdle
	})
	usageAgrees(t, e.home, session, tc)
}

// gatedToolTurn is a model turn that runs g's command, a tool call that
// holds until the gate opens, and spends 1234 tokens in and 56 out.
func gatedToolTurn(g *agenttest.Gate) fakemodel.Turn {
	return fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Running it."), fakemodel.Bash(g.Command())},
		Usage: fakemodel.Usage{InputTokens: 1234, OutputTokens: 56}}
}

// stoppedTurnEnds waits on c until session is idle again and returns its
// turn_complete, having checked it is the only one and marked interrupted.
func stoppedTurnEnds(t *testing.T, c *sseClient, session string) event.Event {
	t.Helper()
	n := 0
	var tc event.Event
	evs := c.until(t, stoppedTurnBudget, func(evs []event.Event) bool {
		for _, ev := range evs {
			if ev.Type == event.Status && ev.SessionID == session && ev.State == event.StateIdle {
				return true
			}
		}
		return false
	})
	for _, ev := range evs {
		if ev.Type == event.TurnComplete && ev.SessionID == session {
			tc = ev
			n++
		}
	}
	if n != 1 || !tc.Interrupted {
		t.Fatalf("%d turn_completes, the last %+v; want one, interrupted: %v", n, tc, kinds(evs))
	}
	return tc
}

// usageAgrees checks that `usage --by session` counts session's turns as
// the one turn_complete tc, with its tokens and cost.
func usageAgrees(t *testing.T, home, session string, tc event.Event) {
	t.Helper()
	out, err := runCLI(t, "usage", "--home", home, "--by", "session", "--json")
	if err != nil {
		t.Fatalf("usage: %v\n%s", err, out)
	}
	var rep usagerep.Report
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
		t.Fatalf("usage --json: %v\n%s", err, out)
	}
	for _, r := range rep.Rows {
		if strings.HasSuffix(r.Key, session) {
			if r.Turns != 1 || r.Usage != tc.Usage || math.Abs(r.CostUSD-tc.CostUSD) > 1e-9 {
				t.Errorf("usage counts %d turns, %+v, $%f; the stream one, %+v, $%f", r.Turns, r.Usage, r.CostUSD, tc.Usage, tc.CostUSD)
			}
			return
		}
	}
	t.Errorf("usage has no row for session %s: %s", session, out)
}

// TestRealCodexKilledMidTool kills a real Codex run (its launcher and the
// agent, as a closed terminal or a crash does) with SIGKILL while its shell
// call runs: the rollout stops with no task_complete. Its turn ends as the
// agent did: one turn_complete marked interrupted with the tokens the model
// reported, the workspace idle, and `usage` counting the same.
func TestRealCodexKilledMidTool(t *testing.T) {
	co, g := gatedCodexTurn(t)
	co.Prompt = "run the long check"
	home, dir := co.Home, co.Dir
	env := []string{codextest.KeyEnv + "=test-key", "PATH=" + filepath.Dir(co.Bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	p := startBridgeWith(t, home, 0, env, "--headless")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, stderr, done := startCodexRun(t, ctx, co)
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-done })
	if err := g.Started(ctx); err != nil {
		t.Fatalf("the shell call never ran: %v\n%s", err, stderr.String())
	}
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.Status == event.StateWorking })
	c := openStream(t, p, ws.ID, 0)
	var thread string
	c.until(t, time.Minute, func(evs []event.Event) bool {
		if n := len(evs); n > 0 && evs[n-1].Type == event.ToolUse && evs[n-1].Agent == "codex" {
			thread = evs[n-1].SessionID
			return true
		}
		return false
	})
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	tc := stoppedTurnEnds(t, c, thread)
	if tc.Usage.InputTokens != 1234 || tc.Usage.OutputTokens != 56 {
		t.Errorf("turn_complete %+v, want 1234 tokens in and 56 out", tc)
	}
	p.waitFor(func(w apiWorkspace) bool { return w.ID == ws.ID && w.Status == event.StateIdle })
	usageAgrees(t, home, thread, tc)
}

// TestRealClaudeEscStopsTheTurn presses Esc in a real Claude Code's own UI
// while its tool call runs: Claude Code writes its "[Request interrupted
// by user for tool use]" note, and the bridge ends the turn there, marked
// interrupted with the tokens spent, as `usage` counts it too.
func TestRealClaudeEscStopsTheTurn(t *testing.T) {
	e := newAgentEnv(t)
	g := agenttest.NewGate(t.TempDir())
	fm := fakemodel.NewTest(t, gatedToolTurn(g), fakemodel.Reply(fakemodel.Text("never asked")))
	e.start(0)
	ctx, term := e.terminal(fm)
	if err := term.Type(ctx, "run the gated command"); err != nil {
		t.Fatal(err)
	}
	if err := g.Started(ctx); err != nil {
		t.Fatal(err)
	}
	ws := e.workspace()
	c := openStream(t, e.p, ws.ID, 0)
	var session string
	c.until(t, time.Minute, func(evs []event.Event) bool {
		if n := len(evs); n > 0 && evs[n-1].Type == event.ToolUse {
			session = evs[n-1].SessionID
			return true
		}
		return false
	})
	if err := term.Press(ctx, "Escape"); err != nil {
		t.Fatal(err)
	}
	tc := stoppedTurnEnds(t, c, session)
	if tc.Usage.InputTokens != 1234 || tc.Usage.OutputTokens != 56 || !tc.CostKnown || tc.CostUSD <= 0 {
		t.Errorf("turn_complete %+v, want 1234 tokens in and 56 out, priced", tc)
	}
	usageAgrees(t, e.home, session, tc)
}

// TestRealCodexInterruptedTurnIsMarked stops a real Codex turn while its
// shell call runs, as a UI's stop button does (the app server's
// turn/interrupt): Codex writes turn_aborted, and the bridge ends the turn
// there, marked interrupted with the tokens spent, as `usage` counts it.
func TestRealCodexInterruptedTurnIsMarked(t *testing.T) {
	co, g := gatedCodexTurn(t)
	home, dir := co.Home, co.Dir
	p := startBridgeWith(t, home, 0, nil, "--headless")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, thread := codextest.StartAppThread(ctx, t, co, dir, "never", "danger-full-access")
	res, err := srv.Call(ctx, "turn/start", map[string]any{"threadId": thread, "input": []map[string]any{{"type": "text", "text": "run the long check"}}})
	if err != nil {
		t.Fatal(err)
	}
	var started struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	if err := json.Unmarshal(res, &started); err != nil || started.Turn.ID == "" {
		t.Fatalf("turn/start answered %s (%v)", res, err)
	}
	if err := g.Started(ctx); err != nil {
		t.Fatalf("the shell call never ran: %v\n%s", err, srv.Stderr())
	}
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.Status == event.StateWorking })
	c := openStream(t, p, ws.ID, 0)
	c.until(t, time.Minute, func(evs []event.Event) bool {
		n := len(evs)
		return n > 0 && evs[n-1].Type == event.ToolUse && evs[n-1].SessionID == thread
	})
	if _, err := srv.Call(ctx, "turn/interrupt", map[string]any{"threadId": thread, "turnId": started.Turn.ID}); err != nil {
		t.Fatal(err)
	}
	tc := stoppedTurnEnds(t, c, thread)
	if tc.Usage.InputTokens != 1234 || tc.Usage.OutputTokens != 56 {
		t.Errorf("turn_complete %+v, want 1234 tokens in and 56 out", tc)
	}
	usageAgrees(t, home, thread, tc)
}

// gatedCodexTurn is a home where real Codex (the current release) runs one
// turn against the fake model: it reports 1234 tokens in and 56 out and
// calls a shell command that waits at g until the test is done with it.
// startCodexRun starts the codex run co describes, its output on stderr,
// and waits for it in the background: done says how it ended. The caller
// says in its cleanup how the run is to end.
func startCodexRun(t *testing.T, ctx context.Context, co codextest.Options) (*exec.Cmd, *strings.Builder, chan error) {
	t.Helper()
	cmd, err := codextest.Command(ctx, co)
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, stderr, done
}

func gatedCodexTurn(t *testing.T) (codextest.Options, *agenttest.Gate) {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, "work", "shop")
	g := agenttest.NewGate(t.TempDir())
	oai := fakemodel.NewTest(t, fakemodel.Turn{
		Build: func(r fakemodel.Request) []fakemodel.Block {
			return []fakemodel.Block{fakemodel.Text("Running the long check."), fakemodel.Shell(r.ToolNames(), g.Command())}
		},
		Usage: fakemodel.Usage{InputTokens: 1234, OutputTokens: 56},
	}, fakemodel.Reply(fakemodel.Text("never asked")))
	co := codextest.Options{Bin: codextest.Find(t, codextest.Latest), BaseURL: oai.URL(), Home: home, Dir: dir}
	if err := codextest.PrepareHome(co.CodexHome(), dir, oai.URL(), codextest.ModelFor(codextest.Latest)); err != nil {
		t.Fatal(err)
	}
	return co, g
}
