package transcript

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
)

var update = flag.Bool("update", false, "rewrite the corpus's expected event lists")

// TestCorpus parses real transcripts written by several Claude Code
// versions (testdata/corpus/README.md) and compares the events with the
// reviewed list beside each file (<file>.events). Run with -update to
// rewrite the lists, then read the diff before committing it.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*/*.jsonl")
	sub, _ := filepath.Glob("testdata/corpus/*/*/subagents/*.jsonl")
	files = append(files, sub...)
	if len(files) < 3 {
		t.Fatalf("corpus missing: %v", files)
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, "testdata/corpus/"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var p Parser
			var evs []event.Event
			for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				if evs, err = p.Line(line, evs); err != nil {
					t.Fatalf("real transcript line rejected: %v", err)
				}
			}
			evs = p.Flush(evs)
			evs = p.Quiet(evs) // the file is complete: a quiet spell follows
			got := describe(evs)
			golden := path + ".events"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("no expected list (run go test -run TestCorpus -update and review it): %v", err)
			}
			if got != string(want) {
				t.Errorf("events differ from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

// describe renders events one per line, readable in a review.
func describe(evs []event.Event) string {
	var b strings.Builder
	for _, e := range evs {
		side := ""
		if e.Sidechain {
			side = " [sidechain]"
		}
		switch e.Type {
		case event.User, event.Assistant, event.Thinking:
			fmt.Fprintf(&b, "%s%s %q truncated=%v\n", e.Type, side, e.Content, e.Truncated)
		case event.ToolUse:
			fmt.Fprintf(&b, "%s%s %s %q truncated=%v\n", e.Type, side, e.Name, e.Input, e.TruncIn)
		case event.ToolResult:
			fmt.Fprintf(&b, "%s%s %s error=%v %q truncated=%v\n", e.Type, side, e.Name, e.IsError, e.Output, e.TruncOut)
		case event.TurnComplete:
			cost := fmt.Sprintf("%.6f", e.CostUSD)
			if !e.CostKnown {
				cost = "null"
			}
			fmt.Fprintf(&b, "%s in=%d out=%d cache_write=%d cache_read=%d cost=%s duration_ms=%d model=%s", e.Type,
				e.Usage.InputTokens, e.Usage.OutputTokens, e.Usage.CacheCreationTokens, e.Usage.CacheReadTokens, cost, e.DurationMS, e.Model)
			if e.SubagentUsage != (event.Usage{}) {
				fmt.Fprintf(&b, " subagent_in=%d subagent_out=%d subagent_cost=%.6f", e.SubagentUsage.InputTokens, e.SubagentUsage.OutputTokens, e.SubagentCostUSD)
			}
			b.WriteByte('\n')
		default:
			fmt.Fprintf(&b, "%s\n", e.Type)
		}
	}
	return b.String()
}
