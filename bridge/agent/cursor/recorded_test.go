package cursor_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/eventtest"
)

// TestTheHarnessRecording reads the store the real SDK 1.0.32 wrote
// against testkit's fake backend (testdata/sdk-1.0.32, made by
// testkit/cursortest's TestRecord) through Store and Parser. What is
// expected is what that fake was scripted to hand out (its README), not
// what the reader makes of it: two finished runs of one agent with their
// tokens, text, thinking and both tool calls with their results, and a
// second agent whose run the backend refused.
func TestTheHarnessRecording(t *testing.T) {
	path, _ := loadDump(t, filepath.Join("testdata", "sdk-1.0.32", "index.sql"))
	st := cursor.NewStore(path)
	defer st.Close()
	ctx := context.Background()
	agents, err := st.Agents(ctx)
	if err != nil || len(agents) != 2 {
		t.Fatalf("agents %+v, %v: want the recording's two", agents, err)
	}
	byTurns := map[int][]event.Event{} // turn_completes an agent's run gave → its events
	for _, a := range agents {
		p, _ := cursor.NewParser(nil)
		var evs []event.Event
		var mark cursor.Mark
		for {
			rows, err := st.Rows(ctx, a.ID, mark, 3) // a few at a time, as a follower reads on
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				if evs, err = p.Line(rows[i].AppendLine(nil), evs); err != nil {
					t.Fatalf("agent %s row %d: %v", a.ID, i, err)
				}
			}
			if len(rows) < 3 {
				break
			}
			mark = cursor.Mark{Turn: rows[len(rows)-1].Turn, Seq: rows[len(rows)-1].Seq}
		}
		byTurns[len(eventtest.OfType(evs, event.TurnComplete))] = evs
		if p.InTurn() {
			t.Errorf("agent %s still in a turn after its runs ended", a.ID)
		}
	}

	ok := byTurns[2]
	if ok == nil {
		t.Fatalf("no agent with two ended runs: %v", byTurns)
	}
	tc := eventtest.OfType(ok, event.TurnComplete)
	want := []event.Usage{
		{InputTokens: 1234, OutputTokens: 56, CacheReadTokens: 700, CacheCreationTokens: 30},
		{InputTokens: 321, OutputTokens: 9},
	}
	for i, w := range want {
		if tc[i].Usage != w || tc[i].Interrupted {
			t.Errorf("turn %d: usage %+v interrupted %v, want %+v", i+1, tc[i].Usage, tc[i].Interrupted, w)
		}
	}
	// The SDK stores a streamed answer as one message a delta, and each is an event.
	texts := strings.ReplaceAll(joined(eventtest.OfType(ok, event.Assistant), func(e event.Event) string { return e.Content }), "\n", "")
	for _, s := range []string{"Reading hello.txt.", "It says hello.", "Second answer."} {
		if !strings.Contains(texts, s) {
			t.Errorf("assistant text %q lacks %q", texts, s)
		}
	}
	if th := strings.ReplaceAll(joined(eventtest.OfType(ok, event.Thinking), func(e event.Event) string { return e.Content }), "\n", ""); !strings.Contains(th, "The user wants the file read.") {
		t.Errorf("thinking %q", th)
	}
	uses := joined(eventtest.OfType(ok, event.ToolUse), func(e event.Event) string { return e.Name + " " + e.Input })
	for _, s := range []string{"read", "hello.txt", "shell", "wc -l hello.txt"} {
		if !strings.Contains(uses, s) {
			t.Errorf("tool calls %q lack %q", uses, s)
		}
	}
	results := joined(eventtest.OfType(ok, event.ToolResult), func(e event.Event) string { return e.Output })
	for _, s := range []string{"hello from the workspace", "1 hello.txt"} {
		if !strings.Contains(results, s) {
			t.Errorf("tool results %q lack %q", results, s)
		}
	}

	failed := byTurns[1]
	if failed == nil {
		t.Fatalf("no agent with one ended run: %v", byTurns)
	}
	if e := eventtest.OfType(failed, event.TurnComplete)[0]; e.Usage != (event.Usage{}) || e.Interrupted {
		t.Errorf("the refused run's turn_complete %+v: want no usage, not interrupted", e)
	}
}

// joined is f of each event, one per line.
func joined(evs []event.Event, f func(event.Event) string) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(f(e))
		b.WriteByte('\n')
	}
	return b.String()
}
