package transcript

import (
	"errors"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
)

// feed parses lines and returns every event, then Flush's.
func feed(t *testing.T, p *Parser, lines ...string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, l := range lines {
		var err error
		out, err = p.Line([]byte(l), out)
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
	}
	return p.Flush(out)
}

func types(evs []event.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.Type)
	}
	return strings.Join(s, ",")
}

const (
	prompt    = `{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"fix the bug"}}`
	toolCall  = `{"type":"assistant","requestId":"r1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000},"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls -la","description":"list"}}]}}`
	toolRes   = `{"type":"user","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a\nb","is_error":false}]}}`
	finalText = `{"type":"assistant","requestId":"r2","timestamp":"2026-01-01T00:00:04Z","message":{"id":"m2","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":20,"output_tokens":30},"content":[{"type":"text","text":"Done."}]}}`
)

func TestTurnWithTool(t *testing.T) {
	var p Parser
	evs := feed(t, &p, prompt, toolCall, toolRes, finalText)
	if got := types(evs); got != "user,tool_use,tool_result,assistant,turn_complete" {
		t.Fatalf("events = %s", got)
	}
	if evs[1].Name != "Bash" || evs[1].Input != "ls -la" || evs[2].Name != "Bash" || evs[2].Output != "a\nb" {
		t.Errorf("tool events = %+v / %+v", evs[1], evs[2])
	}
	tc := evs[4]
	want := event.Usage{InputTokens: 30, OutputTokens: 35, CacheCreationTokens: 100, CacheReadTokens: 1000}
	if tc.Usage != want || tc.Model != "claude-sonnet-4-5" || tc.DurationMS != 4000 {
		t.Errorf("turn_complete = %+v", tc)
	}
	if wantCost := Cost("claude-sonnet-4-5", want); tc.CostUSD != wantCost || wantCost == 0 {
		t.Errorf("cost = %v, want %v", tc.CostUSD, wantCost)
	}
	if p.InTurn() {
		t.Error("turn still open")
	}
}

func TestUsageDeduplicatedAcrossLinesOfOneResponse(t *testing.T) {
	// 2.1.x writes one line per content block, each with the response's usage.
	line := func(block string) string {
		return `{"type":"assistant","requestId":"r9","message":{"id":"m9","model":"claude-opus-4-5","stop_reason":"end_turn","usage":{"input_tokens":7,"output_tokens":50},"content":[` + block + `]}}`
	}
	var p Parser
	evs := feed(t, &p, prompt, line(`{"type":"thinking","thinking":"hmm"}`), line(`{"type":"text","text":"hi"}`))
	if got := types(evs); got != "user,thinking,assistant,turn_complete" {
		t.Fatalf("events = %s", got)
	}
	if u := evs[3].Usage; u.InputTokens != 7 || u.OutputTokens != 50 {
		t.Errorf("usage counted twice: %+v", u)
	}
}

func TestOldFormatTurnEndsOnQuietOrNextPrompt(t *testing.T) {
	old := `{"type":"assistant","requestId":"r1","message":{"id":"m1","model":"claude-sonnet-4","stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1},"content":[{"type":"text","text":"hello"}]}}`
	oldTool := `{"type":"assistant","requestId":"r0","message":{"id":"m0","model":"claude-sonnet-4","stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1},"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/x"}}]}}`
	var p Parser
	evs := feed(t, &p, prompt, oldTool)
	if got := types(p.Quiet(nil)); got != "" {
		t.Fatalf("quiet with a tool call unanswered ended the turn: %s", got)
	}
	evs = feed(t, &p, toolRes, old)
	if got := types(evs); got != "tool_result,assistant" {
		t.Fatalf("no stop reason: turn must stay open, got %s", got)
	}
	if got := types(p.Quiet(nil)); got != "turn_complete" {
		t.Fatalf("quiet after the answer: %s", got)
	}
	// Next turn, no quiet spell: the next prompt proves the end.
	evs = feed(t, &p, prompt, old, prompt)
	if got := types(evs); got != "user,assistant,turn_complete,user" {
		t.Fatalf("events = %s", got)
	}
}

func TestTruncationAndToolInputs(t *testing.T) {
	long := strings.Repeat("é", 600) // two bytes each: a cut must not split one
	tests := []struct {
		name, input, want string
		trunc             bool
	}{
		{"Read", `{"file_path":"/a/b.go","limit":10}`, "/a/b.go", false},
		{"Edit", `{"file_path":"/a/c.go","old_string":"x","new_string":"y"}`, "/a/c.go", false},
		{"Write", `{"file_path":"/a/d.go","content":"` + long + `"}`, "/a/d.go", false},
		{"Bash", `{"command":"` + long + `"}`, strings.Repeat("é", 500), true},
		{"mcp__x__y", `{"b":1,"a":"z"}`, `{"b":1,"a":"z"}`, false},
		{"TodoWrite", `{}`, "", false},
	}
	for _, tt := range tests {
		var p Parser
		line := `{"type":"assistant","message":{"id":"m","stop_reason":"tool_use","content":[{"type":"tool_use","id":"t","name":"` + tt.name + `","input":` + tt.input + `}]}}`
		evs := feed(t, &p, line)
		if len(evs) != 1 || evs[0].Input != tt.want || evs[0].TruncIn != tt.trunc {
			t.Errorf("%s: got %+v", tt.name, evs)
		}
	}
	var p Parser
	res := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"text","text":"` + long + `"},{"type":"image"}],"is_error":true}]}}`
	evs := feed(t, &p, res)
	if len(evs) != 1 || !evs[0].TruncOut || !evs[0].IsError || len([]rune(evs[0].Output)) != 500 {
		t.Errorf("result: %+v", evs)
	}
}

func TestBadAndUnknownLines(t *testing.T) {
	var p Parser
	for _, l := range []string{"", "not json", `{"type":"user"`, `[1,2]`, `"str"`} {
		if _, err := p.Line([]byte(l), nil); !errors.Is(err, ErrNotJSON) {
			t.Errorf("%q: err = %v, want ErrNotJSON", l, err)
		}
	}
	unknown := []string{
		`{"type":"summary","summary":"x","leafUuid":"u"}`,
		`{"type":"file-history-snapshot","snapshot":{}}`,
		`{"type":"queue-operation","operation":"enqueue"}`,
		`{"type":"brand-new-type","x":[1,2,3]}`,
		`{"type":"assistant"}`,
		`{"type":"user","message":{}}`,
		`{"type":"user","isMeta":true,"message":{"content":"<caveat>"}}`,
		`{"no":"type"}`,
	}
	if evs := feed(t, &p, unknown...); len(evs) != 0 {
		t.Errorf("ignored records made events: %+v", evs)
	}
}

func TestSidechainMarkedAndOutsideTheTurn(t *testing.T) {
	side := `{"type":"assistant","isSidechain":true,"message":{"id":"s","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":999},"content":[{"type":"text","text":"sub"}]}}`
	var p Parser
	evs := feed(t, &p, prompt, side, finalText)
	if got := types(evs); got != "user,assistant,assistant,turn_complete" {
		t.Fatalf("events = %s", got)
	}
	if !evs[1].Sidechain || evs[2].Sidechain {
		t.Errorf("sidechain flags: %v %v", evs[1].Sidechain, evs[2].Sidechain)
	}
	if evs[3].Usage.InputTokens != 20 || evs[3].Model != "claude-sonnet-4-5" {
		t.Errorf("subagent usage leaked into the main turn: %+v", evs[3])
	}
}

func TestCostStateWins(t *testing.T) {
	var p Parser
	evs := feed(t, &p, `{"type":"cost-state","totalCostUSD":1.5}`, prompt, finalText)
	// No new cost-state during the turn: fall back to pricing.
	if evs[len(evs)-1].CostUSD != Cost("claude-sonnet-4-5", event.Usage{InputTokens: 20, OutputTokens: 30}) {
		t.Errorf("cost = %v", evs[len(evs)-1].CostUSD)
	}
	evs = feed(t, &p, prompt, `{"type":"cost-state","totalCostUSD":1.75}`, finalText)
	if c := evs[len(evs)-1].CostUSD; c != 0.25 {
		t.Errorf("cost from cost-state = %v, want 0.25", c)
	}
}

func TestPriceTable(t *testing.T) {
	for _, m := range []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001",
		"claude-3-5-haiku-20241022", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514", "claude-opus-4-6", "claude-sonnet-9-future"} {
		if _, ok := PriceOf(m); !ok {
			t.Errorf("no price for %s", m)
		}
	}
	if p, _ := PriceOf("claude-opus-4-1-20250805"); p.Input != 15 {
		t.Errorf("opus 4.1 input = %v (longest prefix must win)", p.Input)
	}
	if _, ok := PriceOf("gpt-4"); ok {
		t.Error("priced an unknown model")
	}
	got := Cost("claude-sonnet-4-5", event.Usage{InputTokens: 1e6, OutputTokens: 1e6, CacheCreationTokens: 1e6, CacheReadTokens: 1e6})
	if want := 3 + 15 + 3.75 + 0.30; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("cost = %v, want %v", got, want)
	}
}

func TestResponseSplitAcrossReadsIsOneTurn(t *testing.T) {
	line := func(block string) string {
		return `{"type":"assistant","requestId":"r9","message":{"id":"m9","model":"claude-opus-4-5","stop_reason":"end_turn","usage":{"input_tokens":100,"output_tokens":50},"content":[` + block + `]}}`
	}
	var p Parser
	evs := feed(t, &p, prompt, line(`{"type":"thinking","thinking":"hmm"}`)) // Flush ends the turn here
	evs = append(evs, feed(t, &p, line(`{"type":"text","text":"hi"}`))...)
	if got := types(evs); got != "user,thinking,turn_complete,assistant" {
		t.Fatalf("events = %s", got)
	}
	if p.InTurn() {
		t.Error("the rest of an ended response opened a turn")
	}
}

func TestInterruptEndsTheTurn(t *testing.T) {
	var p Parser
	intr := `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`
	evs := feed(t, &p, prompt, toolCall, intr)
	if got := types(evs); got != "user,tool_use,turn_complete" {
		t.Fatalf("events = %s", got)
	}
	if p.InTurn() {
		t.Error("still working after an interrupt")
	}
}
