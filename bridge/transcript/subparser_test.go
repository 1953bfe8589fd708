package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/event"
)

// TestSubParserReadsASubagentsFile: a subagent's own file, as real Claude
// Code wrote it, read as the engine reads it beside its session: every
// event is the subagent's, none ends a turn, a 2.0 warm-up shows nothing,
// and what each spent lands in the session's open turn (in the corpus,
// every subagent response is the fake model's side reply: 100 tokens in,
// 20 out), or nowhere when the session's parser is not given.
func TestSubParserReadsASubagentsFile(t *testing.T) {
	const corpus = "testdata/corpus"
	// Hand-made: a first line that does not say it is a sidechain, and a
	// Warmup prompt that is not the file's first line.
	midWarmup := filepath.Join(t.TempDir(), "agent-mid.jsonl")
	if err := os.WriteFile(midWarmup, []byte(
		`{"parentUuid":null,"sessionId":"s","type":"user","message":{"role":"user","content":"Look around"},"uuid":"u1","timestamp":"2026-12-02T10:45:43.334Z"}`+"\n"+
			`{"parentUuid":"u1","isSidechain":true,"sessionId":"s","type":"user","message":{"role":"user","content":"Warmup"},"uuid":"u2","timestamp":"2026-12-02T10:45:44.334Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	side := event.Usage{InputTokens: 100, OutputTokens: 20}
	tests := []struct {
		name    string
		file    string
		counted bool
		shown   int         // events shown, from the file's reviewed .events less its turn_complete
		want    event.Usage // in the session's turn
	}{
		{"2.1's subagents folder", corpus + "/2.1.328/cdde5e9d-5ddb-4c57-9334-6b05a2e72297/subagents/agent-aaa4a3eec90c91381.jsonl", true, -1, twice(side)},
		{"2.0 beside the transcript", corpus + "/2.0.77/agent-af4a400.jsonl", true, 4, twice(side)},
		{"2.0's warm-up", corpus + "/2.0.77/agent-a15c892.jsonl", true, 0, side},
		{"history, counted nowhere", corpus + "/2.0.77/agent-af4a400.jsonl", false, 4, event.Usage{}},
		{"a file saying no sidechain, Warmup not first", midWarmup, true, 2, event.Usage{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := os.ReadFile(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if tt.shown < 0 {
				tt.shown = shownIn(t, tt.file+".events")
			}
			var session Parser
			session.Line([]byte(`{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"delegate"}}`), nil)
			sub, err := NewSubParser(nil)
			if err != nil {
				t.Fatal(err)
			}
			if tt.counted {
				sub.CountInto(&session)
			} else {
				sub.CountInto(nil)
			}
			var evs []event.Event
			for line := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
				if evs, err = sub.Line(line, evs); err != nil {
					t.Fatal(err)
				}
			}
			if len(evs) != tt.shown {
				t.Errorf("%d events shown, want %d: %+v", len(evs), tt.shown, evs)
			}
			for _, e := range evs {
				if !e.Sidechain || e.Type == event.TurnComplete {
					t.Errorf("event %s sidechain %v: every event is the subagent's, none ends a turn", e.Type, e.Sidechain)
				}
			}
			if sub.Busy() {
				t.Error("busy after its last tool call was answered")
			}
			if saved, _ := sub.Save(); bytes.Contains(saved, []byte(`"turn"`)) {
				t.Errorf("saved state keeps a turn of its own: %s", saved)
			}
			end := session.EndTurn(nil)
			if len(end) != 1 || end[0].Usage != tt.want || end[0].SubagentUsage != tt.want {
				t.Errorf("session's turn %+v, want usage and subagent usage %+v", end, tt.want)
			}
		})
	}
}

func twice(u event.Usage) event.Usage {
	u.InputTokens, u.OutputTokens = 2*u.InputTokens, 2*u.OutputTokens
	return u
}

// shownIn counts the events of a reviewed .events file but its
// turn_complete lines.
func shownIn(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range bytes.SplitSeq(bytes.TrimSpace(data), []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("turn_complete")) {
			n++
		}
	}
	return n
}

// TestSubParserResumesBusy: a subagent waiting on a tool call is busy,
// and still is when resumed from its saved state, until the result comes.
func TestSubParserResumesBusy(t *testing.T) {
	sub, _ := NewSubParser(nil)
	sub.Line([]byte(`{"type":"assistant","isSidechain":true,"sessionId":"s","message":{"id":"m1","model":"claude-haiku-4-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}]}}`), nil)
	saved, err := sub.Save()
	if err != nil {
		t.Fatal(err)
	}
	back, err := NewSubParser(saved)
	if err != nil || !sub.Busy() || !back.Busy() {
		t.Fatalf("busy %v, resumed busy %v (%v)", sub.Busy(), back.Busy(), err)
	}
	evs, _ := back.Line([]byte(`{"type":"user","isSidechain":true,"sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}`), nil)
	if back.Busy() || len(evs) != 1 || evs[0].Name != "Bash" {
		t.Errorf("after the result: busy %v, events %+v (want the Bash result)", back.Busy(), evs)
	}
	if _, err := NewSubParser([]byte("{")); err == nil {
		t.Error("an unreadable saved state resumed")
	}
}
