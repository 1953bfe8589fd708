package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealClaudeSessionBornWhileDown: the bridge is killed with SIGKILL, a
// new `claude -p` session (real Claude Code, the fake model server) takes
// a whole turn in the workspace, and the bridge is started again. A
// client resuming the stream from the last id it saw gets that session's
// prompt, answer and turn_complete with the turn's tokens, with ids that
// follow on. The answer is longer than the tail a cold start reads of a
// record it takes for history (32 KiB), so read as one the prompt and the
// answer's start would be lost.
func TestRealClaudeSessionBornWhileDown(t *testing.T) {
	e := newAgentEnv(t)
	const answered = "Answered while the bridge was down."
	fm := fakemodel.NewTest(t,
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("First answer.")}, Usage: fakemodel.Usage{InputTokens: 111, OutputTokens: 11}},
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text(answered + strings.Repeat(" And so on.", 4000))}, Usage: fakemodel.Usage{InputTokens: 222, OutputTokens: 22}},
	)
	f := e.firstTurn(fm)
	port, first, ws, last := f.port, f.session, f.ws, f.last
	e.p.kill(syscall.SIGKILL)

	born := e.run(fm, "born while down")
	e.start(port)
	c2 := openStream(t, e.p, ws.ID, last)
	got := c2.until(t, 60*time.Second, func(evs []event.Event) bool { return turnOf(evs, born) != nil })
	if got[0].ID != last+1 {
		t.Errorf("first id after the restart %d, want %d", got[0].ID, last+1)
	}
	var user, answer bool
	for _, ev := range got {
		switch {
		case ev.SessionID == first && (ev.Type == event.User || ev.Type == event.Assistant):
			t.Errorf("the session seen before the kill published again: %+v", ev)
		case ev.SessionID != born:
		case ev.Type == event.User && ev.Content == "born while down":
			user = true
		case ev.Type == event.Assistant && strings.HasPrefix(ev.Content, answered):
			answer = true
		}
	}
	if !user || !answer {
		t.Errorf("prompt shown %v, answer shown %v: %v", user, answer, kinds(got))
	}
	tc := turnOf(got, born)
	if tc.Usage.InputTokens != 222 || tc.Usage.OutputTokens != 22 || tc.Interrupted {
		t.Errorf("turn_complete: %+v", *tc)
	}
}

// firstRun is what firstTurn leaves: the bridge's port, the first
// session, its workspace, a stream of it and the id of its last event by
// the turn's end.
type firstRun struct {
	port    int
	session string
	ws      apiWorkspace
	c       *sseClient
	last    int64
}

// firstTurn starts the bridge on a free port (to start it again on the
// same one) and has a `claude -p` session take a first turn, which gives
// the bridge its workspace and a journal; it returns once the stream has
// shown the turn's end.
func (e *agentEnv) firstTurn(fm *fakemodel.Server) firstRun {
	t := e.t
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	e.start(port)
	f := firstRun{port: port, session: e.run(fm, "first"), ws: e.workspace()}
	f.c = openStream(t, e.p, f.ws.ID, 0)
	evs := f.c.until(t, time.Minute, func(evs []event.Event) bool { return turnOf(evs, f.session) != nil })
	f.last = evs[len(evs)-1].ID
	return f
}

// countEvents is how many of evs match.
func countEvents(evs []event.Event, match func(event.Event) bool) int {
	n := 0
	for _, ev := range evs {
		if match(ev) {
			n++
		}
	}
	return n
}

// turnOf is session's first turn_complete in evs, nil if none.
func turnOf(evs []event.Event, session string) *event.Event {
	for i, ev := range evs {
		if ev.Type == event.TurnComplete && ev.SessionID == session {
			return &evs[i]
		}
	}
	return nil
}

// TestRealClaudeRestartMatchesAnUninterruptedRun runs one scripted session
// of real Claude Code (each release the issue names) twice against the
// fake model: with the bridge up throughout, and with the bridge killed
// with SIGKILL before a new session is born and again before the first
// session is resumed, each time started again after the turn ended. A
// client resuming the stream from the last id it saw must see what the
// uninterrupted run showed: the same events and payloads in order, the
// same tokens and cost per turn, and usage must agree. The answers while
// down are longer than the 32 KiB a cold start reads of a record it takes
// for history.
func TestRealClaudeRestartMatchesAnUninterruptedRun(t *testing.T) {
	for _, version := range []string{claudetest.Latest, "2.0.77"} {
		t.Run(version, func(t *testing.T) {
			bin := claudetest.Find(t, version)
			script := func(t *testing.T, e *agentEnv) []downStep {
				long := strings.Repeat(" And so on.", 4000)
				holds := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
				fm := fakemodel.NewTest(t,
					fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Listing."), fakemodel.Bash("echo one")}, Usage: fakemodel.Usage{InputTokens: 101, OutputTokens: 11}, Hold: holds[0]},
					fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("First answer.")}, Usage: fakemodel.Usage{InputTokens: 111, CacheReadInputTokens: 1000, OutputTokens: 12}},
					fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Born while down." + long)}, Usage: fakemodel.Usage{InputTokens: 222, OutputTokens: 22}, Hold: holds[1]},
					fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Bash("echo two")}, Usage: fakemodel.Usage{InputTokens: 303, CacheCreationInputTokens: 500, OutputTokens: 33}, Hold: holds[2]},
					fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Resumed while down." + long)}, Usage: fakemodel.Usage{InputTokens: 333, OutputTokens: 34}},
				)
				step := 0
				run := func(o claudetest.Options) func(t *testing.T) string {
					return func(t *testing.T) string {
						ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
						defer cancel()
						o.Bin, o.BaseURL, o.Home, o.Dir = bin, fm.URL(), e.home, e.dir
						go afterWarmups(ctx, fm, e, o.Prompt, holds[step])
						step++
						res, err := claudetest.Run(ctx, o)
						if err != nil {
							t.Fatalf("claude -p %q: %v\n%s", o.Prompt, err, res.Stderr)
						}
						return res.SessionID
					}
				}
				const first, born = "11111111-2222-4333-8444-555555555555", "66666666-7777-4888-8999-aaaaaaaaaaaa"
				return []downStep{
					{name: "first", run: run(claudetest.Options{SessionID: first, Prompt: "first"})},
					{name: "born while down", down: true, run: run(claudetest.Options{SessionID: born, Prompt: "born while down"})},
					{name: "resumed while down", down: true, run: run(claudetest.Options{Resume: first, Prompt: "resumed while down"})},
				}
			}
			var runs [2]downRun
			for i, interrupted := range []bool{false, true} {
				e := newAgentEnv(t)
				e.bin = bin
				runs[i] = runDownScript(t, e, script(t, e), interrupted)
			}
			compareDownRuns(t, runs[0], runs[1])
		})
	}
}

// afterWarmups closes hold, which holds the answer to prompt, once every
// warm-up subagent Claude Code 2.0 started (a "Warmup" request each, sent
// as it starts) has its answer in its file, so that the runs compared
// write their lines in one order. (An answer written after the turn's own
// answer counts in the turn all the same, whose turn_complete waits for
// it: TestRealClaudeLateWarmupsCountInTheirTurn.) 2.1 sends none: hold is
// closed once the prompt's request comes.
func afterWarmups(ctx context.Context, fm *fakemodel.Server, e *agentEnv, prompt string, hold chan struct{}) {
	defer close(hold)
	if _, err := fm.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Kind == fakemodel.KindMain && r.Contains(prompt) }); err != nil {
		return
	}
	for ctx.Err() == nil {
		sent := 0
		for _, r := range fm.Requests() {
			if r.Kind == fakemodel.KindWarmup {
				sent++
			}
		}
		answered := 0
		files, _ := filepath.Glob(filepath.Join(e.home, ".claude", "projects", "*", "agent-*.jsonl"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(`"type":"assistant"`)) {
				answered++
			}
		}
		if answered >= sent {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
