package transcript

import "testing"

// TestTurnCostByHand: lines written as real releases write them, with the
// expected dollars worked out by hand from prices.json.
func TestTurnCostByHand(t *testing.T) {
	p0 := `{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`
	for _, tt := range []struct {
		name          string
		lines         []string
		cost, subCost float64
		known         bool
	}{
		{"no requestId, two block lines of one message counted once",
			// haiku 4.5: 100 in × $1 + 50 out × $5 = $0.00035 (once, not twice)
			[]string{p0,
				`{"type":"assistant","message":{"id":"m1","model":"claude-haiku-4-5","stop_reason":null,"usage":{"input_tokens":100,"output_tokens":1},"content":[{"type":"thinking","thinking":"x"}]}}`,
				`{"type":"assistant","message":{"id":"m1","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":50},"content":[{"type":"text","text":"ok"}]}}`},
			0.00035, 0, true},
		{"1-hour cache writes",
			// sonnet 4.5: 1000 5m writes × $3.75 + 1000 1h writes × $6 = $0.00975
			[]string{p0, `{"type":"assistant","requestId":"r","message":{"id":"m2","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":2000,"cache_creation":{"ephemeral_5m_input_tokens":1000,"ephemeral_1h_input_tokens":1000}},"content":[{"type":"text","text":"ok"}]}}`},
			0.00975, 0, true},
		{"long context",
			// opus 4.6 above 200k input: 250000 reads × $1 + 100 out × $37.50 = $0.25375
			[]string{p0, `{"type":"assistant","requestId":"r","message":{"id":"m3","model":"claude-opus-4.6","stop_reason":"end_turn","usage":{"input_tokens":0,"output_tokens":100,"cache_read_input_tokens":250000},"content":[{"type":"text","text":"ok"}]}}`},
			0.25375, 0, true},
		{"progress record subagent counted once with its file line",
			// subagent haiku 4.5: 1000 in × $1 = $0.001; main haiku: 10 out × $5 = $0.00005
			[]string{p0,
				`{"type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","requestId":"rs","message":{"id":"ms","model":"claude-haiku-4-5","usage":{"input_tokens":1000,"output_tokens":0}}}}}`,
				`{"type":"assistant","isSidechain":true,"requestId":"rs","message":{"id":"ms","model":"claude-haiku-4-5","usage":{"input_tokens":1000,"output_tokens":0},"content":[]}}`,
				`{"type":"assistant","requestId":"r","message":{"id":"m4","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"output_tokens":10},"content":[{"type":"text","text":"ok"}]}}`},
			0.00105, 0.001, true},
		{"web searches from server_tool_use",
			// sonnet 4.5: 100 in × $3 + 10 out × $15 + 3 searches × $0.01 = $0.03045
			[]string{p0, `{"type":"assistant","requestId":"r","message":{"id":"m7","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":10,"server_tool_use":{"web_search_requests":3,"web_fetch_requests":2}},"content":[{"type":"text","text":"ok"}]}}`},
			0.03045, 0, true},
		{"fast mode",
			// opus 4.6 fast: 1000 in × $30 + 100 out × $150 = $0.045 (not $0.0075 at the standard rate)
			[]string{p0, `{"type":"assistant","requestId":"r","message":{"id":"m8","model":"claude-opus-4-6","stop_reason":"end_turn","usage":{"input_tokens":1000,"output_tokens":100,"speed":"fast"},"content":[{"type":"text","text":"ok"}]}}`},
			0.045, 0, true},
		{"unknown model", []string{p0, `{"type":"assistant","message":{"id":"m5","model":"kimi-k2-turbo","stop_reason":"end_turn","usage":{"input_tokens":10},"content":[{"type":"text","text":"ok"}]}}`}, 0, 0, false},
		{"synthetic is free and known", []string{p0, `{"type":"assistant","message":{"id":"m6","model":"<synthetic>","stop_reason":"end_turn","usage":{"input_tokens":0},"content":[{"type":"text","text":"ok"}]}}`}, 0, 0, true},
	} {
		var p Parser
		evs := p.Flush(feed(t, &p, tt.lines...))
		tc := evs[len(evs)-1]
		if tc.Type != "turn_complete" || !near(tc.CostUSD, tt.cost) || !near(tc.SubagentCostUSD, tt.subCost) || tc.CostKnown != tt.known {
			t.Errorf("%s: %+v, want cost %v sub %v known %v", tt.name, tc, tt.cost, tt.subCost, tt.known)
		}
	}
}
