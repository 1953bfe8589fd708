package transcript

import "testing"

// Issue 24, finding 11: a line with negative token counts was taken as
// is ("-4999999 in" on the turn line, usage totals pushed down). A count
// is never below zero, nor beyond what any response can hold; a negative
// count of web searches costs nothing either.
func TestNegativeTokenCountsAreRejected(t *testing.T) {
	p0 := `{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`
	for _, tt := range []struct {
		name, line string
		in, out    int64
		cost       float64
	}{
		{"negative counts", `{"type":"assistant","requestId":"r","message":{"id":"m1","model":"claude-haiku-4-5","stop_reason":"end_turn",` +
			`"usage":{"input_tokens":-4999999,"output_tokens":-20,"cache_creation_input_tokens":-5,"cache_read_input_tokens":-7,` +
			`"cache_creation":{"ephemeral_5m_input_tokens":-1,"ephemeral_1h_input_tokens":-2},"server_tool_use":{"web_search_requests":-300}},` +
			`"content":[{"type":"text","text":"ok"}]}}`, 0, 0, 0},
		{"negative beside positive", `{"type":"assistant","requestId":"r","message":{"id":"m2","model":"claude-haiku-4-5","stop_reason":"end_turn",` +
			// haiku 4.5: 100 in × $1/M = $0.0001
			`"usage":{"input_tokens":100,"output_tokens":-50},"content":[{"type":"text","text":"ok"}]}}`, 100, 0, 0.0001},
		{"beyond any response", `{"type":"assistant","requestId":"r","message":{"id":"m3","model":"claude-haiku-4-5","stop_reason":"end_turn",` +
			`"usage":{"input_tokens":9223372036854775807,"output_tokens":1},"content":[{"type":"text","text":"ok"}]}}`, 0, 1, 0.000005},
	} {
		var p Parser
		evs := p.Flush(feed(t, &p, p0, tt.line))
		tc := evs[len(evs)-1]
		if tc.Type != "turn_complete" || tc.Usage.InputTokens != tt.in || tc.Usage.OutputTokens != tt.out ||
			tc.Usage.CacheCreationTokens != 0 || tc.Usage.CacheReadTokens != 0 || !near(tc.CostUSD, tt.cost) {
			t.Errorf("%s: in %d out %d cache %d/%d cost %v; want in %d out %d, no cache, cost %v",
				tt.name, tc.Usage.InputTokens, tc.Usage.OutputTokens, tc.Usage.CacheCreationTokens, tc.Usage.CacheReadTokens, tc.CostUSD, tt.in, tt.out, tt.cost)
		}
	}
}
