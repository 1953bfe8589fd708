package conductor

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealClaudeCodeFrames: the frames the real Claude Code prints when
// run as Conductor runs it (stream-json in and out, one process for the
// tab's turns), against the fake model, written into session_messages as
// Conductor keeps them — the typed prompt as text, each frame as a row —
// and streamed back. The turns' costs are Claude Code's own: the first
// turn's is its first result's total_cost_usd, and together they are its
// last one's.
func TestRealClaudeCodeFrames(t *testing.T) {
	bin := claudetest.Find(t, "")
	fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Bash("echo hi")), fakemodel.Reply(fakemodel.Text("first answer")),
		fakemodel.Reply(fakemodel.Text("second answer")))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := claudetest.Start(ctx, claudetest.Options{Bin: bin, BaseURL: fm.URL(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	w := newDB(t, conductordb.Shapes(t)[1], "s-tab", "claude")
	rec := newRecorder()
	rec.run(t, w.Path, map[string]Cursor{"s-tab": {}})
	var totals []float64
	var durations []int64
	seen := 0
	for _, prompt := range []string{"run echo", "again"} {
		write(t, w, "s-tab", prompt)
		if err := s.Send(prompt); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WaitResult(ctx); err != nil {
			t.Fatalf("%v\n%s", err, s.Stderr())
		}
		frames := s.Events()
		for _, f := range frames[seen:] {
			write(t, w, "s-tab", json.RawMessage(f.Raw))
			if f.Type == "result" {
				var r struct {
					Total    float64 `json:"total_cost_usd"`
					Duration int64   `json:"duration_ms"`
				}
				if err := json.Unmarshal(f.Raw, &r); err != nil {
					t.Fatal(err)
				}
				totals, durations = append(totals, r.Total), append(durations, r.Duration)
			}
		}
		seen = len(frames)
	}
	evs := rec.turns(t, "s-tab", 2)

	var lines []string
	var turns []event.Event
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			turns = append(turns, e)
			continue
		}
		lines = append(lines, brief(e))
	}
	want := []string{
		`user "run echo" cut=false`,
		`tool_use toolu_fake0001_0 Bash "echo hi" cut=false`,
		`tool_result toolu_fake0001_0 Bash "hi" cut=false err=false`,
		`assistant "first answer" cut=false`,
		`user "again" cut=false`,
		`assistant "second answer" cut=false`,
	}
	if got := strings.Join(lines, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if len(turns) != 2 || len(totals) != 2 {
		t.Fatalf("%d turns for %d results", len(turns), len(totals))
	}
	for i, e := range turns {
		if !e.CostKnown || e.DurationMS != durations[i] || e.Model == "" || e.Usage.InputTokens == 0 {
			t.Errorf("turn %d: %s, want a known cost, %d ms and its model and usage", i+1, brief(e), durations[i])
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(turns[0].CostUSD, totals[0]) || !near(turns[0].CostUSD+turns[1].CostUSD, totals[1]) || turns[1].CostUSD <= 0 {
		t.Errorf("turn costs %s; Claude Code's totals %v", fmt.Sprint(turns[0].CostUSD, turns[1].CostUSD), totals)
	}
}
