package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	usagerep "conductorbridge/bridge/usage"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealClaudeResumeStreamsWhatUsageCounts runs real Claude Code
// `claude -p` in a session, then `claude -p --resume` of it, with the
// bridge up, and compares the stream with `usage --by session`: usage
// lists no session the stream does not show, and each session's turns,
// tokens and cost are the stream's turn_complete events'. 2.0.77's resumed
// run starts under an id of its own and leaves an empty record of it,
// whose warm-ups' prompts name it and their answers whichever id the run
// held then (the empty one while the bridge's SessionStart hook runs):
// every one of those warm-ups (100 input and 20 output tokens each, the
// fake model's answer to a request that sets none) counts in the resumed
// session, in the stream and in usage. 2.1 sends no warm-ups and leaves no such
// record. Each answer is held until the run's warm-ups are answered
// (afterWarmups), so that none arrives after its turn ended.
func TestRealClaudeResumeStreamsWhatUsageCounts(t *testing.T) {
	for _, version := range []string{claudetest.Latest, "2.0.77"} {
		t.Run(version, func(t *testing.T) {
			e := newAgentEnv(t)
			e.bin = claudetest.Find(t, version)
			holds := []chan struct{}{make(chan struct{}), make(chan struct{})}
			fm := fakemodel.NewTest(t,
				fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("First answer.")}, Usage: fakemodel.Usage{InputTokens: 111, OutputTokens: 11}, Hold: holds[0]},
				fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Second answer.")}, Usage: fakemodel.Usage{InputTokens: 222, OutputTokens: 22}, Hold: holds[1]},
			)
			port, err := freePort()
			if err != nil {
				t.Fatal(err)
			}
			e.start(port)
			defer e.p.kill(syscall.SIGTERM)
			const session = "11111111-2222-4333-8444-555555555555"
			run := func(o claudetest.Options, hold chan struct{}) {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				o.Bin, o.BaseURL, o.Home, o.Dir = e.bin, fm.URL(), e.home, e.dir
				go afterWarmups(ctx, fm, e, o.Prompt, hold)
				if res, err := claudetest.Run(ctx, o); err != nil {
					t.Fatalf("claude -p %q: %v\n%s", o.Prompt, err, res.Stderr)
				}
			}
			run(claudetest.Options{SessionID: session, Prompt: "first"}, holds[0])
			ws := e.workspace()
			c := openStream(t, e.p, ws.ID, 0)
			defer c.cancel()
			run(claudetest.Options{Resume: session, Prompt: "again"}, holds[1])
			evs := c.until(t, 90*time.Second, func(evs []event.Event) bool { return len(eventtest.OfType(evs, event.TurnComplete)) >= 2 })

			// Every warm-up answered counts in the session, whichever id its
			// answer names: 2.0.77 writes each one's prompt, then its answer,
			// to an agent-*.jsonl.
			answered := 0
			files, _ := filepath.Glob(filepath.Join(e.home, ".claude", "projects", "*", "agent-*.jsonl"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				var answer struct{ Type string }
				if json.Unmarshal([]byte(lines[len(lines)-1]), &answer) == nil && answer.Type == "assistant" {
					answered++
				}
			}
			want := event.Usage{InputTokens: 111 + 222 + int64(answered)*100, OutputTokens: 11 + 22 + int64(answered)*20}
			for _, ev := range evs {
				if ev.SessionID != "" && ev.SessionID != session {
					t.Errorf("an event of session %s: %+v", ev.SessionID, ev)
				}
			}
			var streamed event.Usage
			var cost float64
			for _, tc := range eventtest.OfType(evs, event.TurnComplete) {
				if tc.SessionID != session {
					t.Errorf("a turn of session %s: %+v", tc.SessionID, tc)
				}
				streamed, cost = streamed.Add(tc.Usage), cost+tc.CostUSD
			}
			if streamed != want {
				t.Errorf("the stream's turns spent %+v; want %+v (%d warm-ups answered)", streamed, want, answered)
			}
			var rep usagerep.Report
			if err := apiCall(context.Background(), e.cfg, http.MethodGet, "/api/usage?by=session", nil, &rep); err != nil {
				t.Fatalf("usage: %v", err)
			}
			for _, row := range rep.Rows {
				if !strings.HasSuffix(row.Key, ":"+session) {
					t.Errorf("usage counts session %s, which the stream never showed: %d turns, %+v", row.Key, row.Turns, row.Usage)
					continue
				}
				if row.Turns != 2 || row.Usage != streamed || math.Abs(row.CostUSD-cost) > 1e-9 {
					t.Errorf("usage of the session: %d turns, %+v, $%v; the stream: 2 turns, %+v, $%v", row.Turns, row.Usage, row.CostUSD, streamed, cost)
				}
			}
			if len(rep.Rows) == 0 {
				t.Error("usage counts no session")
			}
		})
	}
}
