package engine

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// subagentScript is one turn that runs a subagent: the main agent's call
// of the agent tool, the subagent's one response, the main agent's answer.
// The call comes with no text before it: 2.0 writes each block of a
// response as a line of its own when the block ends, with no stop reason,
// and its turn's end is inferred from a quiet spell with no tool call open
// (DESIGN.md). On a loaded machine a pause between the text's line and the
// call's then ends the turn at the text, by that rule, before any subagent
// ran; that inference is not what this test is about.
// Every response is Sonnet 4.5's ($3 in, $15 out, $3.75 5-minute cache
// write, $0.30 cache read per million) with usage of its own, so the turn's
// sum can be worked out by hand.
func subagentScript(version string) []fakemodel.Turn {
	agent := map[string]any{
		"description":   "Survey the workspace",
		"prompt":        "Look around and report back in one line.",
		"subagent_type": "general-purpose",
	}
	tool := "Task"
	if version == claudetest.Latest {
		tool = "Agent"
	}
	if version != "1.0.128" {
		agent["run_in_background"] = false // 2.1 runs agents in the background by default
	}
	const model = "claude-sonnet-4-5-20250929"
	turns := []fakemodel.Turn{
		{Blocks: []fakemodel.Block{fakemodel.ToolUse(tool, agent)},
			Usage: fakemodel.Usage{InputTokens: 10, CacheCreationInputTokens: 1000, OutputTokens: 50}, Model: model},
		{Blocks: []fakemodel.Block{fakemodel.Text("The workspace is empty.")},
			Usage: fakemodel.Usage{InputTokens: 2000, CacheReadInputTokens: 3000, OutputTokens: 400}, Model: model},
		{Blocks: []fakemodel.Block{fakemodel.Text("The subagent says the workspace is empty.")},
			Usage: fakemodel.Usage{InputTokens: 20, CacheReadInputTokens: 1000, OutputTokens: 30}, Model: model},
	}
	for i := range turns {
		// Paced like a real model, so the files grow while the bridge reads.
		turns[i].Delay = 300 * time.Millisecond
		turns[i].ChunkDelay = 10 * time.Millisecond
	}
	// The subagent's last line is on disk well before the answer that ends
	// the turn, as with a real model: a loaded machine still reads it first.
	turns[2].Delay = time.Second
	return turns
}

// TestSubagentUsageCountsInTheTurn runs a turn with a subagent through each
// layout Claude Code has written subagents in — inline sidechain lines
// (1.0), agent-*.jsonl beside the transcript (2.0), <session>/subagents/
// (2.1) — with the real binary against the fake model, while the engine
// follows the workspace. The turn's turn_complete counts the subagent's
// response, once, and says how much of it that was.
func TestSubagentUsageCountsInTheTurn(t *testing.T) {
	for _, version := range []string{claudetest.Latest, "2.0.77", "1.0.128"} {
		t.Run(version, func(t *testing.T) {
			bin := claudetest.Find(t, version)
			h := newHome(t)
			dir, _ := h.workspace("subs")
			fm := fakemodel.NewTest(t, subagentScript(version)...)
			r := h.startWith(func(c *Config) { c.QuietAfter = time.Second })
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			s, err := claudetest.Start(ctx, claudetest.Options{Bin: bin, BaseURL: fm.URL(), Home: h.root, Dir: dir,
				AllowedTools: append(claudetest.DefaultTools(), "Agent", "Task")})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Send("Ask a subagent to look around."); err != nil {
				t.Fatal(err)
			}
			if _, err := s.WaitResult(ctx); err != nil {
				t.Fatal(err)
			}
			if n := fm.Remaining(); n != 0 {
				t.Fatalf("%d scripted responses left: the subagent did not run", n)
			}
			// Warm-ups (2.0 starts a few subagents with "Warmup" before the
			// first prompt) are real requests in agent files too: each is
			// the fake's side reply, 100 in and 20 out, at the model asked.
			warm := map[string]int{}
			for _, q := range fm.Requests() {
				if q.Kind == fakemodel.KindWarmup {
					warm[q.Model()]++
				}
			}
			id := waitWorkspaceFor(t, r, dir, 30*time.Second)
			tc := waitTurn(t, r, id, 30*time.Second)
			t.Logf("turn: %+v sub %+v cost %v sub cost %v warm-ups %v", tc.Usage, tc.SubagentUsage, tc.CostUSD, tc.SubagentCostUSD, warm)

			// By hand. Main: 10 + 20 in, 1000 written, 1000 read, 50 + 30 out.
			// Subagent: 2000 in, 3000 read, 400 out.
			nWarm := int64(0)
			for _, n := range warm {
				nWarm += int64(n)
			}
			wantSub := event.Usage{InputTokens: 2000 + 100*nWarm, CacheReadTokens: 3000, OutputTokens: 400 + 20*nWarm}
			wantAll := event.Usage{InputTokens: 30 + wantSub.InputTokens, CacheCreationTokens: 1000, CacheReadTokens: 4000, OutputTokens: 80 + wantSub.OutputTokens}
			if tc.Usage != wantAll || tc.SubagentUsage != wantSub {
				t.Errorf("turn usage %+v (subagents %+v), want %+v (subagents %+v)", tc.Usage, tc.SubagentUsage, wantAll, wantSub)
			}
			// Subagent: 2000 × $3 + 3000 × $0.30 + 400 × $15 = 6000 + 900 + 6000 µ$ = $0.0129.
			// Main: 30 × $3 + 1000 × $3.75 + 1000 × $0.30 + 80 × $15 = 90 + 3750 + 300 + 1200 µ$ = $0.00534.
			wantSubUSD := 0.0129 + warmCost(t, warm)
			wantUSD := 0.00534 + wantSubUSD
			if !tc.CostKnown || math.Abs(tc.CostUSD-wantUSD) > 1e-9 || math.Abs(tc.SubagentCostUSD-wantSubUSD) > 1e-9 {
				t.Errorf("turn $%v (subagents $%v, known %v), want $%v (subagents $%v)", tc.CostUSD, tc.SubagentCostUSD, tc.CostKnown, wantUSD, wantSubUSD)
			}
			files, _ := filepath.Glob(filepath.Join(h.projects, "*", "agent-*.jsonl"))
			nested, _ := filepath.Glob(filepath.Join(h.projects, "*", "*", "subagents", "agent-*.jsonl"))
			t.Logf("agent files beside: %d, in subagents/: %d", len(files), len(nested))
		})
	}
}

// warmCost prices warm-up requests by hand: 100 in and 20 out each, at
// the rates of the model each asked for.
func warmCost(t *testing.T, warm map[string]int) float64 {
	usd := 0.0
	for model, n := range warm {
		var in, out float64 // USD per million
		switch model {
		case "claude-sonnet-4-5-20250929":
			in, out = 3, 15
		case "claude-haiku-4-5-20251001":
			in, out = 1, 5
		default:
			t.Fatalf("a warm-up asked for %s: add its rates", model)
		}
		usd += float64(n) * (100*in + 20*out) / 1e6
	}
	return usd
}

// waitWorkspaceFor is waitWorkspace with room for a real binary's start
// on a loaded machine.
func waitWorkspaceFor(t testing.TB, r *running, dir string, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, in := range r.eng.Workspaces() {
			if in.Directory == dir {
				return in.ID
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("workspace %s never appeared", dir)
	return ""
}

// waitTurn waits for the workspace's first turn_complete.
func waitTurn(t *testing.T, r *running, id string, d time.Duration) event.Event {
	t.Helper()
	deadline := time.After(d)
	for {
		if topic, ok := r.eng.Topic(id); ok {
			replay, _, sub := topic.Subscribe(0)
			for _, it := range replay {
				if it.Event().Type == event.TurnComplete {
					topic.Unsubscribe(sub)
					return it.Event()
				}
			}
			select {
			case it := <-sub.C:
				topic.Unsubscribe(sub)
				if it.Event().Type == event.TurnComplete {
					return it.Event()
				}
				continue
			case <-deadline:
				topic.Unsubscribe(sub)
				t.Fatal("no turn_complete")
			case <-time.After(200 * time.Millisecond):
			}
			topic.Unsubscribe(sub)
			continue
		}
		select {
		case <-deadline:
			t.Fatal("no topic")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
