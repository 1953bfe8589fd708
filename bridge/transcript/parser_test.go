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
	// sonnet 4.5: 30 in × $3 + 35 out × $15 + 100 writes × $3.75 + 1000 reads × $0.30
	// = (90 + 525 + 375 + 300) / 1e6 = $0.00129
	if !near(tc.CostUSD, 0.00129) || !tc.CostKnown {
		t.Errorf("cost = %v (known %v), want 0.00129", tc.CostUSD, tc.CostKnown)
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
	evs = feed(t, &p, toolRes)
	if got := types(p.Quiet(evs)); got != "tool_result" {
		// 1.0 running a subagent: the model answers the result seconds
		// later, and a quiet spell before that answer is not the end.
		t.Fatalf("quiet after a tool's result, before the model answered it, ended the turn: %s", got)
	}
	evs = feed(t, &p, old)
	if got := types(evs); got != "assistant" {
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

func TestSidechainMarkedAndCountedAsSubagent(t *testing.T) {
	side := `{"type":"assistant","isSidechain":true,"message":{"id":"s","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":999},"content":[{"type":"text","text":"sub"}]}}`
	var p Parser
	evs := feed(t, &p, prompt, side, finalText)
	if got := types(evs); got != "user,assistant,assistant,turn_complete" {
		t.Fatalf("events = %s", got)
	}
	if !evs[1].Sidechain || evs[2].Sidechain {
		t.Errorf("sidechain flags: %v %v", evs[1].Sidechain, evs[2].Sidechain)
	}
	// 1.x inline subagent: 999 haiku-4.5 input × $1 = $0.000999; main: 20 × $3 + 30 × $15 = $0.00051
	tc := evs[3]
	if tc.Usage.InputTokens != 1019 || tc.SubagentUsage.InputTokens != 999 || tc.Model != "claude-sonnet-4-5" ||
		!near(tc.CostUSD, 0.001509) || !near(tc.SubagentCostUSD, 0.000999) {
		t.Errorf("subagent not counted as the turn's subagent: %+v", tc)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// TestCostStateIsNotUsed: Claude Code 2.1's cost-state is written only at
// exit and the usage command cannot see which turn it belongs to; turns are
// priced from the table, the same way usage is.
func TestCostStateIsNotUsed(t *testing.T) {
	var p Parser
	evs := feed(t, &p, `{"type":"cost-state","totalCostUSD":1.5}`, prompt, `{"type":"cost-state","totalCostUSD":1.75}`, finalText)
	// 20 in × $3 + 30 out × $15 = $0.00051
	if c := evs[len(evs)-1].CostUSD; !near(c, 0.00051) {
		t.Errorf("cost = %v, want 0.00051", c)
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

// TestInterruptEndsTheTurn: the note Claude Code writes when the person
// presses Esc ends the turn, marked interrupted, with what it spent; the
// note is no prompt of theirs.
func TestInterruptEndsTheTurn(t *testing.T) {
	for _, note := range []string{"[Request interrupted by user for tool use]", "[Request interrupted by user]"} {
		t.Run(note, func(t *testing.T) {
			var p Parser
			intr := `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"` + note + `"}]}}`
			evs := feed(t, &p, prompt, toolCall, intr)
			if got := types(evs); got != "user,tool_use,turn_complete" {
				t.Fatalf("events = %s", got)
			}
			if tc := evs[2]; !tc.Interrupted || tc.Usage.InputTokens != 10 || tc.Usage.OutputTokens != 5 {
				t.Errorf("turn_complete %+v, want interrupted with 10 tokens in and 5 out", tc)
			}
			if p.InTurn() {
				t.Error("still working after an interrupt")
			}
		})
	}
}
