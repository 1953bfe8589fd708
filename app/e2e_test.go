package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealClaudeCodeEndToEnd runs the real Claude Code binary (several
// versions) against the fake model, as Conductor runs it, and reads what
// the bridge streams: every event, in order, with tool names on results,
// the 500-character cut and one turn_complete per turn with the tokens
// the model reported.
func TestRealClaudeCodeEndToEnd(t *testing.T) {
	for _, version := range []string{claudetest.Latest, "2.0.77", "1.0.128"} {
		t.Run(version, func(t *testing.T) { testRealClaude(t, version) })
	}
}

func testRealClaude(t *testing.T, version string) {
	bin := claudetest.Find(t, version)
	home := t.TempDir()
	dir := filepath.Join(home, "work", "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "greeting.txt")
	u := func(in, out int) fakemodel.Usage { return fakemodel.Usage{InputTokens: in, OutputTokens: out} }
	turn := func(u fakemodel.Usage, blocks ...fakemodel.Block) fakemodel.Turn {
		return fakemodel.Turn{Blocks: blocks, Usage: u}
	}
	fm := fakemodel.NewTest(t,
		turn(u(100, 10), fakemodel.Thinking("Plan: look around first."), fakemodel.Text("Let me look."), fakemodel.Bash("echo hello")),
		turn(u(100, 10), fakemodel.ToolUse("Write", map[string]any{"file_path": file, "content": "hello world\n"})),
		turn(u(100, 10), fakemodel.ToolUse("Edit", map[string]any{"file_path": file, "old_string": "world", "new_string": "there"})),
		turn(u(100, 10), fakemodel.Bash("exit 3")),
		turn(u(100, 10), fakemodel.Bash("seq 1 400")),
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("All done.")},
			Usage: fakemodel.Usage{InputTokens: 1200, CacheCreationInputTokens: 300, CacheReadInputTokens: 4000, OutputTokens: 42}},
		turn(u(50, 7), fakemodel.Text("You're welcome.")),
	)
	p := startBridgeProc(t, home, 0)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := claudetest.Start(ctx, claudetest.Options{Bin: bin, BaseURL: fm.URL(), Home: home, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Send("Give me a short tour."); err != nil {
		t.Fatal(err)
	}
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir || strings.HasSuffix(w.Directory, "/work/demo") })
	c := openStream(t, p, ws.ID, 0)
	if _, err := s.WaitResult(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Send("Thanks!"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitResult(ctx); err != nil {
		t.Fatal(err)
	}
	evs := c.until(t, time.Minute, func(evs []event.Event) bool { return count(event.TurnComplete)(evs) == 2 })

	var seq []string
	var turns, results []event.Event
	for i, e := range evs {
		if i > 0 && e.ID <= evs[i-1].ID {
			t.Errorf("ids not increasing: %d after %d", e.ID, evs[i-1].ID)
		}
		switch e.Type {
		case event.Status, event.Session:
			continue
		case event.TurnComplete:
			turns = append(turns, e)
		case event.ToolResult:
			results = append(results, e)
		}
		seq = append(seq, kinds([]event.Event{e})[0])
	}
	want := []string{"user", "thinking", "assistant", "tool_use:Bash", "tool_result:Bash",
		"tool_use:Write", "tool_result:Write", "tool_use:Edit", "tool_result:Edit",
		"tool_use:Bash", "tool_result:Bash", "tool_use:Bash", "tool_result:Bash",
		"assistant", "turn_complete", "user", "assistant", "turn_complete"}
	if !reflect.DeepEqual(seq, want) {
		t.Fatalf("event sequence:\n got %v\nwant %v", seq, want)
	}
	if len(results) != 5 || results[0].Output != "hello" || results[0].IsError ||
		!results[3].IsError || !results[4].TruncOut || len([]rune(results[4].Output)) != event.MaxText {
		t.Errorf("tool results: %+v", results)
	}
	want1 := event.Usage{InputTokens: 1700, OutputTokens: 92, CacheCreationTokens: 300, CacheReadTokens: 4000}
	var side event.Usage
	if version == "2.0.77" {
		// 2.0 warms three subagents up as the session starts (the fake
		// model answers each with 100 in, 20 out): real requests, paid for,
		// so in the first turn's count, but not shown in the stream.
		side = event.Usage{InputTokens: 300, OutputTokens: 60}
		want1 = want1.Add(side)
	}
	if turns[0].Usage != want1 || turns[0].SubagentUsage != side || !turns[0].CostKnown || turns[0].CostUSD <= 0 || turns[0].Model == "" {
		t.Errorf("turn 1: %+v, want usage %+v (subagents %+v)", turns[0], want1, side)
	}
	if want2 := (event.Usage{InputTokens: 50, OutputTokens: 7}); turns[1].Usage != want2 {
		t.Errorf("turn 2 usage: %+v, want %+v", turns[1].Usage, want2)
	}
	if count(event.Session)(evs) != 1 {
		t.Errorf("want one session event: %v", kinds(evs))
	}
}
