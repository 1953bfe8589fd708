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

// A response's key is its message id, and its request id after a "|"
// when the line has one; the message id the parser keeps is the key's
// start when the line has usage (idOf), its own string otherwise.
func TestResponseKeyAndMessageID(t *testing.T) {
	for _, tt := range []struct {
		name, line, key string
	}{
		{"with a request id", `{"type":"assistant","requestId":"req_1","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1}}}`, "msg_1|req_1"},
		{"without", `{"type":"assistant","message":{"id":"msg_1","model":"m","usage":{"input_tokens":1}}}`, "msg_1"},
		{"no id", `{"type":"assistant","requestId":"req_1","message":{"model":"m","usage":{"input_tokens":1}}}`, "|req_1"},
	} {
		r, ok := ParseResponse([]byte(tt.line))
		if !ok || r.Key != tt.key {
			t.Errorf("%s: key %q (%v), want %q", tt.name, r.Key, ok, tt.key)
		}
	}
	for _, tt := range []struct {
		id, key, want string
	}{
		{"msg_1", "msg_1|req_1", "msg_1"},
		{"msg_1", "msg_1", "msg_1"},
		{"msg_1", "", "msg_1"},            // no usage: no key
		{"msg_12", "msg_1|req", "msg_12"}, // a key not the id's
		{"msg_1", "msg_2|req", "msg_1"},
		{"", "|req_1", ""},
	} {
		if got := idOf([]byte(tt.id), tt.key); got != tt.want {
			t.Errorf("idOf(%q, %q) = %q, want %q", tt.id, tt.key, got, tt.want)
		}
	}
}
