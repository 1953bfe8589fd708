package transcript

import (
	"fmt"
	"testing"

	"conductorbridge/bridge/event"
)

// TestSavedStateStaysSmallInALongTurn runs one turn of many tool calls,
// each response written over two lines (as Claude Code does, with the
// usage repeated), and saves the state after every line as the engine
// journals it. The saved state must not grow with the turn, and the
// turn's usage must still count every response once.
func TestSavedStateStaysSmallInALongTurn(t *testing.T) {
	tests := []struct {
		name  string
		calls int
	}{
		{"a hundred calls", 100},
		{"thousand calls", 1000},
	}
	saved := make([]int, len(tests))
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Parser
			var out []event.Event
			line := func(s string) {
				t.Helper()
				var err error
				if out, err = p.Line([]byte(s), out[:0]); err != nil {
					t.Fatal(err)
				}
			}
			line(`{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`)
			maxSaved := 0
			for i := range tt.calls {
				id := fmt.Sprintf("msg_%04d", i)
				usage := `{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":100}`
				final := `{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100}`
				line(fmt.Sprintf(`{"type":"assistant","sessionId":"s","requestId":"r%d","timestamp":"2026-01-01T00:00:01Z","message":{"id":%q,"model":"claude-sonnet-4-5","stop_reason":null,"usage":%s,"content":[{"type":"text","text":"step"}]}}`, i, id, usage))
				line(fmt.Sprintf(`{"type":"assistant","sessionId":"s","requestId":"r%d","timestamp":"2026-01-01T00:00:01Z","message":{"id":%q,"model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":%s,"content":[{"type":"tool_use","id":"tu%d","name":"Bash","input":{}}]}}`, i, id, final, i))
				line(fmt.Sprintf(`{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu%d","content":"ok"}]}}`, i))
				saved, err := p.Save()
				if err != nil {
					t.Fatal(err)
				}
				maxSaved = max(maxSaved, len(saved))
			}
			line(`{"type":"assistant","sessionId":"s","requestId":"rz","timestamp":"2026-01-01T00:00:03Z","message":{"id":"msg_end","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":10,"output_tokens":5},"content":[{"type":"text","text":"done"}]}}`)
			line(`{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":"next"}}`)
			var done *event.Event
			for i := range out {
				if out[i].Type == event.TurnComplete {
					done = &out[i]
				}
			}
			if done == nil {
				t.Fatal("no turn_complete")
			}
			n := int64(tt.calls)
			want := event.Usage{InputTokens: 10*n + 10, OutputTokens: 5*n + 5, CacheReadTokens: 100 * n}
			if done.Usage != want {
				t.Errorf("usage %+v, want %+v", done.Usage, want)
			}
			// The responses remembered to count each once (recentMax), the
			// tool map and the turn's fields: bounded whatever the turn's
			// length, so a hundred calls and a thousand save the same.
			if maxSaved > 16<<10 {
				t.Errorf("saved state reached %d bytes in a turn of %d calls", maxSaved, tt.calls)
			}
			t.Logf("%d calls: largest saved state %d bytes", tt.calls, maxSaved)
			saved[i] = maxSaved
		})
	}
	if saved[1] > saved[0]+saved[0]/10 {
		t.Errorf("the saved state grew with the turn: %d bytes at %d calls, %d at %d", saved[0], tests[0].calls, saved[1], tests[1].calls)
	}
}

// TestStateSavedBeforeOpenResumes: a journal written before the open
// list existed holds every response's usage unordered; resuming from it
// folds them and still counts each once.
func TestStateSavedBeforeOpenResumes(t *testing.T) {
	old := `{"session_id":"s","turn":{"start":"2026-01-01T00:00:00Z","last":"2026-01-01T00:00:01Z","model":"claude-sonnet-4-5","usage":{"a|1":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},"b|2":{"input_tokens":2,"output_tokens":2,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}}`
	p, err := NewParser([]byte(old))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := p.Line([]byte(`{"type":"assistant","sessionId":"s","requestId":"3","timestamp":"2026-01-01T00:00:03Z","message":{"id":"c","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":4},"content":[{"type":"text","text":"done"}]}}`), nil)
	out, _ = p.Line([]byte(`{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":"next"}}`), out)
	for _, e := range out {
		if e.Type == event.TurnComplete {
			if want := (event.Usage{InputTokens: 7, OutputTokens: 7}); e.Usage != want {
				t.Errorf("usage %+v, want %+v", e.Usage, want)
			}
			return
		}
	}
	t.Fatal("no turn_complete")
}
