package codex

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

// TestCorpus parses real rollouts written by two Codex releases
// (testdata/corpus/README.md) and compares the events with the reviewed
// list beside each file (<file>.events). Run with -update to rewrite the
// lists, then read the diff before committing it.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*/*.jsonl")
	if len(files) < 2 {
		t.Fatalf("corpus missing: %v", files)
	}
	for _, path := range files {
		t.Run(strings.TrimPrefix(path, "testdata/corpus/"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := NewParser(nil)
			var evs []event.Event
			for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				if evs, err = p.Line(line, evs); err != nil {
					t.Fatalf("real rollout line rejected: %v", err)
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
			if p.InTurn() {
				t.Error("a turn is still open at the end of a finished session")
			}
		})
	}
}

// describe renders events one per line, readable in a review.
func describe(evs []event.Event) string {
	var b strings.Builder
	for _, e := range evs {
		switch e.Type {
		case event.User, event.Assistant, event.Thinking:
			sys := ""
			if e.System {
				sys = " [system]"
			}
			fmt.Fprintf(&b, "%s%s %q truncated=%v\n", e.Type, sys, e.Content, e.Truncated)
		case event.ToolUse:
			fmt.Fprintf(&b, "%s %s %s %q truncated=%v\n", e.Type, e.Name, e.ToolUseID, e.Input, e.TruncIn)
		case event.ToolResult:
			fmt.Fprintf(&b, "%s %s %s error=%v %q truncated=%v\n", e.Type, e.Name, e.ToolUseID, e.IsError, e.Output, e.TruncOut)
		case event.TurnComplete:
			cost := "null"
			if e.CostKnown {
				cost = fmt.Sprintf("%.6f", e.CostUSD)
			}
			fmt.Fprintf(&b, "%s in=%d cache_read=%d cache_write=%d out=%d reasoning=%d cost=%s duration_ms=%d model=%s\n", e.Type,
				e.Usage.InputTokens, e.Usage.CacheReadTokens, e.Usage.CacheCreationTokens, e.Usage.OutputTokens,
				e.Usage.ReasoningOutputTokens, cost, e.DurationMS, e.Model)
		default:
			fmt.Fprintf(&b, "%s\n", e.Type)
		}
	}
	return b.String()
}
