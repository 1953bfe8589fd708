package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/hooks"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// turnDone21 ends 2.1's line for a finished turn ("✻ Worked for 0s · done
// 5:45 PM"), after its Stop hooks ran.
const turnDone21 = "· done "

// The error notices Claude Code's terminal shows for a Stop hook that
// blocked: 2.1's and 2.0's wording.
var terminalHookErrors = []string{"stop hook reported a problem", "Stop hook reported a problem", "Stop hook error"}

// terminal starts Claude Code's own UI on the workspace, against fm, in
// tmux; it is closed when the test ends. The context bounds the test.
func (e *agentEnv) terminal(fm *fakemodel.Server) (context.Context, *claudetest.Terminal) {
	e.t.Helper()
	tmux := claudetest.FindTmux(e.t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	e.t.Cleanup(cancel)
	// The permission mode Conductor runs Claude Code in: tools run by the
	// rules given (--allowedTools), where 2.1's default auto mode would
	// ask a server-side check the fake model cannot answer.
	term, err := claudetest.StartTerminal(ctx, tmux, claudetest.Options{Bin: e.bin, BaseURL: fm.URL(), Home: e.home, Dir: e.dir,
		Args: []string{"--permission-mode", "default"}})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(term.Close)
	return ctx, term
}

// screenAfter waits until the terminal shows text n times and returns the
// screen.
func screenAfter(t testing.TB, ctx context.Context, term *claudetest.Terminal, text string, n int) string {
	t.Helper()
	s, err := term.WaitFor(ctx, fmt.Sprintf("%d × %q", n, text), func(s string) bool { return strings.Count(s, text) >= n })
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			lines = append(lines, l)
		}
	}
	t.Logf("the terminal shows:\n%s", strings.Join(lines, "\n"))
	return s
}

// noHookError fails the test where the screen shows one of Claude Code's
// hook error lines.
func noHookError(t *testing.T, screen string) {
	t.Helper()
	for _, n := range terminalHookErrors {
		if strings.Contains(screen, n) {
			t.Errorf("the terminal shows %q:\n%s", n, screen)
		}
	}
}

// terminalRun runs b in Claude Code's own UI and returns the screen once
// the turn that read the message is over (done marks that on the screen),
// with the workspace and the message's id.
func (e *agentEnv) terminalRun(b busy, via, done string) (screen, ws, id string) {
	e.t.Helper()
	fm := fakemodel.NewTest(e.t, b.turns...)
	e.start(0)
	ctx, term := e.terminal(fm)
	ws, id = e.deliverWhileBusy(fm, b, func(s string) error { return term.Type(ctx, s) })
	screenAfter(e.t, ctx, term, answer, 1)
	screen = screenAfter(e.t, ctx, term, done, 1) // a notice would come before the turn ends
	e.deliveredVia(ws, id, via)
	return screen, ws, id
}

// TestWordsInClaudeTerminal records what a person running `claude` in a
// terminal sees of a side-panel message, per route and release (README's
// table): on 2.1.328 the words as a notice mid-turn and at a turn's end,
// the bridge's summary line for an idle wake, never a hook error; on
// 2.0.77, where only a block continues a turn, the words under "Stop hook
// error" and the error notice (today's behaviour, kept so a release that
// changes it is noticed).
func TestWordsInClaudeTerminal(t *testing.T) {
	t.Run("2.1.328 mid-turn", func(t *testing.T) {
		e := newAgentEnv(t)
		s, _, _ := e.terminalRun(heldTool(t), "post_tool_use", turnDone21)
		if !strings.Contains(s, "From the side panel: "+panelWords) {
			t.Errorf("the terminal does not show the words:\n%s", s)
		}
		noHookError(t, s)
	})
	t.Run("2.1.328 end of turn", func(t *testing.T) {
		e := newAgentEnv(t)
		e.keepOneStopHook(false)
		s, _, id := e.terminalRun(heldReply(), "stop", turnDone21)
		// The notice, then Claude Code's own line for the hook's
		// context: the words appear twice, the bridge's header once.
		if !strings.Contains(s, "From the side panel: "+panelWords) || !strings.Contains(s, "Stop hook says: [Conductor Bridge message "+id+"]") {
			t.Errorf("the terminal does not show the words as recorded:\n%s", s)
		}
		noHookError(t, s)
	})
	t.Run("2.1.328 idle wake", func(t *testing.T) {
		e := newAgentEnv(t)
		e.keepOneStopHook(true)
		fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("The page looks fine.")), fakemodel.Reply(fakemodel.Text(answer)))
		e.start(0)
		ctx, term := e.terminal(fm)
		if err := term.Type(ctx, "check the page"); err != nil {
			t.Fatal(err)
		}
		screenAfter(t, ctx, term, "The page looks fine.", 1)
		ws := e.workspace()
		id := e.post(ws.ID, panelWords)
		screenAfter(t, ctx, term, answer, 1)
		s := screenAfter(t, ctx, term, turnDone21, 2)
		e.deliveredVia(ws.ID, id, "rewake")
		// Today's behaviour: the wake-up shows as its summary line only.
		if !strings.Contains(s, hooks.RewakeSummary) || strings.Contains(s, panelWords) {
			t.Errorf("the terminal shows a wake-up differently than recorded (update README):\n%s", s)
		}
		noHookError(t, s)
	})
	t.Run("2.0.77 end of turn", func(t *testing.T) {
		e := newAgentEnv(t)
		e.bin = claudetest.Find(t, "2.0.77")
		s, _, id := e.terminalRun(heldTool(t, "The page looks fine."), "stop", "Stop hook error occurred")
		// Today's behaviour, no better route on 2.0: the words under
		// "Stop hook error", and the error notice.
		if !strings.Contains(s, "Stop hook error: [Conductor Bridge message "+id+"]") || !strings.Contains(s, panelWords) {
			t.Errorf("the terminal shows the message differently than recorded (update README):\n%s", s)
		}
	})
}
