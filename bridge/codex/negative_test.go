package codex

import (
	"testing"

	"conductorbridge/bridge/event"
)

// Issue 24, finding 11, for Codex: negative token counts in a usage
// record (0.169) or a token_count (0.47) count as none; the turn's other
// counts stand.
func TestNegativeTokenCountsAreRejected(t *testing.T) {
	start := `{"timestamp":"2026-12-02T18:43:11.557Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}`
	end := `{"timestamp":"2026-12-02T18:43:12.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t1"}}`
	for _, tt := range []struct {
		name, line string
	}{
		{"0.169 usage record", `{"timestamp":"2026-12-02T18:43:11.737Z","type":"token_usage_record","payload":{"turn_id":"t1","response_id":"r1",` +
			`"usage":{"input_tokens":100,"cached_input_tokens":-4999999,"cache_write_input_tokens":-3,"output_tokens":-20,"reasoning_output_tokens":-9}}}`},
		{"0.47 token_count", `{"timestamp":"2026-12-02T18:43:11.737Z","type":"event_msg","payload":{"type":"token_count","info":{` +
			`"total_token_usage":{"input_tokens":100,"cached_input_tokens":-4999999,"output_tokens":-20,"reasoning_output_tokens":-9,"total_tokens":80},` +
			`"last_token_usage":{"input_tokens":100,"cached_input_tokens":-4999999,"output_tokens":-20,"reasoning_output_tokens":-9,"total_tokens":80}}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := NewParser(nil)
			var tc *event.Event
			evs := feed(t, p, start, tt.line, end)
			for i := range evs {
				if evs[i].Type == event.TurnComplete {
					tc = &evs[i]
				}
			}
			want := event.Usage{InputTokens: 100}
			if tc == nil || tc.Usage != want || tc.CostUSD < 0 {
				t.Errorf("turn: %+v; want usage %+v and no negative cost", tc, want)
			}
		})
	}
}
