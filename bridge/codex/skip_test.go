package codex

import (
	"encoding/json"
	"reflect"
	"testing"

	"conductorbridge/bridge/event"
)

// TestSkippingChangesNothing parses both corpora with and without the
// look at each line's type: the same events, the same state, and at least
// a quarter of 0.169's lines never reach the JSON parser.
func TestSkippingChangesNothing(t *testing.T) {
	for _, version := range []string{"0.169.0", "0.47.0"} {
		t.Run(version, func(t *testing.T) {
			fast, _ := NewParser(nil)
			full, _ := NewParser(nil)
			full.parseAll = true
			var a, b []event.Event
			skipped, lines := 0, corpusLines(t, version)
			for _, l := range lines {
				if skippable(l) {
					skipped++
				}
				a, _ = fast.Line(l, a)
				b, _ = full.Line(l, b)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("events differ:\n%+v\n%+v", a, b)
			}
			sa, _ := json.Marshal(fast.State())
			sb, _ := json.Marshal(full.State())
			if string(sa) != string(sb) {
				t.Errorf("state differs:\n%s\n%s", sa, sb)
			}
			if version == "0.169.0" && skipped*4 < len(lines) {
				t.Errorf("only %d of %d lines skipped", skipped, len(lines))
			}
			t.Logf("%d of %d lines skipped", skipped, len(lines))
		})
	}
}

func TestSkippable(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{`{"timestamp":"t","ordinal":3,"type":"event_msg","payload":{"type":"item_completed","item":{}}}`, true},
		{`{"timestamp":"t","type":"world_state","payload":{"full":true}}`, true},
		{`{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message","message":"hi"}}`, true},
		{`{"timestamp":"t","ordinal":3,"type":"event_msg","payload":{"type":"task_complete"}}`, false},
		{`{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":null}}`, false},
		{`{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`, false},
		{`{"timestamp":"t","type":"session_meta","payload":{"id":"x"}}`, false},
		{`{"type":"event_msg","payload":{"type":"item_completed"}}`, false},               // not Codex's key order: parsed
		{`{"timestamp":"t","type":"event_msg","payload":{"type":"item_comp`, false},       // cut short: the parser reports it
		{`{"timestamp":"t","type":"ev\"ent","payload":{"type":"item_completed"}}`, false}, // escapes: parsed
		{`{"timestamp":"t","type":"event_msg","payload":{"type":"exec_approval_request"}}`, false},
	} {
		if got := skippable([]byte(tt.line)); got != tt.want {
			t.Errorf("skippable(%s) = %v, want %v", tt.line, got, tt.want)
		}
	}
}
