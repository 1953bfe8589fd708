package transcript

import (
	"fmt"
	"testing"

	"conductorbridge/bridge/event"
)

// The model a line names is its own, whatever the lines before named:
// the name kept from the last line (intern) is handed again only for
// the same one. A model with no price, between two with one, is the one
// the turn_complete names (EventModel).
func TestEachLineNamesItsOwnModel(t *testing.T) {
	line := func(n int, model, stop string) []byte {
		return fmt.Appendf(nil, `{"type":"assistant","requestId":"r%d","timestamp":"2026-01-01T00:00:0%dZ","message":{"id":"m%d","model":%q,"stop_reason":%s,"usage":{"input_tokens":10,"output_tokens":5},"content":[{"type":"text","text":"x"}]}}`, n, n, n, model, stop)
	}
	var p Parser
	if _, err := p.Line([]byte(prompt), nil); err != nil {
		t.Fatal(err)
	}
	var last []event.Event
	for i, m := range []string{"claude-sonnet-4-5", "claude-sonnet-4-5", "claude-made-up-9", "claude-sonnet-4-5", "claude-opus-4-5"} {
		stop := "null"
		if i == 4 {
			stop = `"end_turn"`
		}
		evs, err := p.Line(line(i+1, m, stop), nil)
		if err != nil {
			t.Fatal(err)
		}
		if i < 4 && p.State.Turn.Model != m {
			t.Errorf("line %d: the turn's model %q, want %q", i+1, p.State.Turn.Model, m)
		}
		last = evs
	}
	last = p.Flush(last)
	for _, e := range last {
		if e.Type == event.TurnComplete {
			if e.Model != "claude-made-up-9" || e.CostKnown {
				t.Errorf("turn_complete names %q (cost known %v), want the unpriced claude-made-up-9", e.Model, e.CostKnown)
			}
			return
		}
	}
	t.Fatalf("no turn_complete in %s", types(last))
}
