package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/claudetest"
	"conductorbridge/bridge/fakemodel"
	"conductorbridge/bridge/hooks"
	"conductorbridge/bridge/inject"
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
func screenAfter(t *testing.T, ctx context.Context, term *claudetest.Terminal, text string, n int) string {
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

func hookErrorOn(screen string) string {
	for _, n := range terminalHookErrors {
		if strings.Contains(screen, n) {
			return n
		}
	}
	return ""
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
		tool, release := gate(t)
		fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Bash(tool)), fakemodel.Reply(fakemodel.Text("Switching to the mobile view.")))
		e.start(0)
		ctx, term := e.terminal(fm)
		if err := term.Type(ctx, "check the page"); err != nil {
			t.Fatal(err)
		}
		waitRequest(t, fm, "check the page")
		ws := e.versionRead()
		id := e.post(ws.ID, panelWords)
		release()
		screenAfter(t, ctx, term, "Switching to the mobile view.", 1)
		s := screenAfter(t, ctx, term, turnDone21, 1) // a notice would come before the turn ends
		if m := e.waitState(ws.ID, id, inject.Confirmed); m.Via != "post_tool_use" {
			t.Fatalf("delivered via %q", m.Via)
		}
		if !strings.Contains(s, "From the side panel: "+panelWords) {
			t.Errorf("the terminal does not show the words:\n%s", s)
		}
		if n := hookErrorOn(s); n != "" {
			t.Errorf("the terminal shows %q:\n%s", n, s)
		}
	})
	t.Run("2.1.328 end of turn", func(t *testing.T) {
		e := newAgentEnv(t)
		e.keepOneStopHook(false)
		hold := make(chan struct{})
		fm := fakemodel.NewTest(t,
			fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("The page looks fine.")}, Hold: hold},
			fakemodel.Reply(fakemodel.Text("Switching to the mobile view.")))
		e.start(0)
		ctx, term := e.terminal(fm)
		if err := term.Type(ctx, "check the page"); err != nil {
			t.Fatal(err)
		}
		waitRequest(t, fm, "check the page")
		ws := e.versionRead()
		id := e.post(ws.ID, panelWords)
		close(hold)
		screenAfter(t, ctx, term, "Switching to the mobile view.", 1)
		s := screenAfter(t, ctx, term, turnDone21, 1) // a notice would come before the turn ends
		if m := e.waitState(ws.ID, id, inject.Confirmed); m.Via != "stop" {
			t.Fatalf("delivered via %q", m.Via)
		}
		// The notice, then Claude Code's own line for the hook's
		// context: the words appear twice, the bridge's header once.
		if !strings.Contains(s, "From the side panel: "+panelWords) || !strings.Contains(s, "Stop hook says: [Conductor Bridge message "+id+"]") {
			t.Errorf("the terminal does not show the words as recorded:\n%s", s)
		}
		if n := hookErrorOn(s); n != "" {
			t.Errorf("the terminal shows %q:\n%s", n, s)
		}
	})
	t.Run("2.1.328 idle wake", func(t *testing.T) {
		e := newAgentEnv(t)
		e.keepOneStopHook(true)
		fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("The page looks fine.")), fakemodel.Reply(fakemodel.Text("Switching to the mobile view.")))
		e.start(0)
		ctx, term := e.terminal(fm)
		if err := term.Type(ctx, "check the page"); err != nil {
			t.Fatal(err)
		}
		screenAfter(t, ctx, term, "The page looks fine.", 1)
		ws := e.workspace()
		id := e.post(ws.ID, panelWords)
		screenAfter(t, ctx, term, "Switching to the mobile view.", 1)
		s := screenAfter(t, ctx, term, turnDone21, 2) // a notice would come before the turn ends
		if m := e.waitState(ws.ID, id, inject.Confirmed); m.Via != "rewake" {
			t.Fatalf("delivered via %q", m.Via)
		}
		// Today's behaviour: the wake-up shows as its summary line only.
		if !strings.Contains(s, hooks.RewakeSummary) || strings.Contains(s, panelWords) {
			t.Errorf("the terminal shows a wake-up differently than recorded (update README):\n%s", s)
		}
		if n := hookErrorOn(s); n != "" {
			t.Errorf("the terminal shows %q:\n%s", n, s)
		}
	})
	t.Run("2.0.77 end of turn", func(t *testing.T) {
		e := newAgentEnv(t)
		e.bin = claudetest.Find(t, "2.0.77")
		tool, release := gate(t)
		fm := fakemodel.NewTest(t,
			fakemodel.Reply(fakemodel.Bash(tool)),
			fakemodel.Reply(fakemodel.Text("The page looks fine.")),
			fakemodel.Reply(fakemodel.Text("Switching to the mobile view.")))
		e.start(0)
		ctx, term := e.terminal(fm)
		if err := term.Type(ctx, "check the page"); err != nil {
			t.Fatal(err)
		}
		waitRequest(t, fm, "check the page")
		ws := e.versionRead()
		id := e.post(ws.ID, panelWords)
		release()
		screenAfter(t, ctx, term, "Switching to the mobile view.", 1)
		// The notice comes with the turn's end.
		s := screenAfter(t, ctx, term, "Stop hook error occurred", 1)
		if m := e.waitState(ws.ID, id, inject.Confirmed); m.Via != "stop" {
			t.Fatalf("delivered via %q", m.Via)
		}
		// Today's behaviour, no better route on 2.0: the words under
		// "Stop hook error", and the error notice.
		if !strings.Contains(s, "Stop hook error: [Conductor Bridge message "+id+"]") || !strings.Contains(s, panelWords) {
			t.Errorf("the terminal shows the message differently than recorded (update README):\n%s", s)
		}
	})
}
