package codex

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/eventtest"
)

func corpusLines(t testing.TB, version string) [][]byte {
	t.Helper()
	files, _ := filepath.Glob("testdata/corpus/" + version + "/*.jsonl")
	if len(files) != 1 {
		t.Fatalf("corpus for %s: %v", version, files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func feed(t testing.TB, p *Parser, lines ...string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, l := range lines {
		var err error
		if out, err = p.Line([]byte(l), out); err != nil {
			t.Fatalf("line %s: %v", l, err)
		}
	}
	return out
}

func TestBadLines(t *testing.T) {
	t.Parallel()
	p, _ := NewParser(nil)
	_ = feed(t, p, `{"timestamp":"2026-12-02T18:00:00Z","type":"session_meta","payload":{"id":"t1","cwd":"/w","cli_version":"0.169.0"}}`)
	before, _ := p.Save()
	for _, line := range []string{
		`{"timestamp":"2026-12-02T18:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hel`, // partial, being written
		`not json at all`,
		`[1,2,3]`,
		``,
	} {
		out, err := p.Line([]byte(line), nil)
		if !errors.Is(err, ErrNotJSON) || len(out) != 0 {
			t.Errorf("%q: %v, %d events", line, err, len(out))
		}
	}
	if after, _ := p.Save(); !bytes.Equal(before, after) {
		t.Errorf("a rejected line changed the state:\n%s\n%s", before, after)
	}
	// Unknown types, at the top and inside, are skipped without a word.
	out := feed(t, p,
		`{"type":"brand_new_record","payload":{"x":1}}`,
		`{"type":"response_item","payload":{"type":"hologram","data":"…"}}`,
		`{"type":"event_msg","payload":{"type":"future_event"}}`,
		`{"type":"response_item"}`,
		`{"type":"response_item","payload":"a string"}`,
		`{"type":"ordinal","ordinal":3}`)
	if len(out) != 0 || p.InTurn() {
		t.Errorf("unknown records made events %v or a turn", out)
	}
	if p.ThreadID() != "t1" || p.Cwd() != "/w" || p.Version() != "0.169.0" {
		t.Errorf("meta: %q %q %q", p.ThreadID(), p.Cwd(), p.Version())
	}
}

func TestHugeOutputIsCut(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("é", 3<<20) // 6 MB of two-byte runes
	p, _ := NewParser(nil)
	out := feed(t, p,
		`{"type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"cat big\"}","call_id":"c1"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\n`+big+`"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"cat big\"]}","call_id":"c2"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"{\"output\":\"`+big+`\",\"metadata\":{\"exit_code\":2}}"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"`+big+`"}]}}`)
	for _, e := range out {
		if e.Type == event.ToolResult && (len([]rune(e.Output)) != event.MaxText || !e.TruncOut || e.Output[:2] != "é") {
			t.Errorf("result %s: %d runes, truncated=%v, starts %q", e.ToolUseID, len([]rune(e.Output)), e.TruncOut, e.Output[:4])
		}
		if e.Type == event.Assistant && (len([]rune(e.Content)) != event.MaxText || !e.Truncated) {
			t.Errorf("assistant text: %d runes", len([]rune(e.Content)))
		}
	}
	if len(out) != 5 || !out[3].IsError || out[1].IsError {
		t.Errorf("events: %s", eventtest.Describe(out))
	}
}

// TestToolNames renders each kind of Codex tool call the way a reader of
// the stream expects it.
func TestToolNames(t *testing.T) {
	t.Parallel()
	call := func(name, args string) string {
		return fmt.Sprintf(`{"type":"response_item","payload":{"type":"function_call","name":%q,"arguments":%q,"call_id":"c"}}`, name, args)
	}
	cases := []struct {
		line, name, input string
	}{
		{call("shell", `{"command":["bash","-lc","ls -la"]}`), "Bash", "ls -la"},
		{call("shell", `{"command":["git","commit","-m","two words"]}`), "Bash", `git commit -m "two words"`},
		{call("shell", `{"command":["apply_patch","*** Begin Patch\n*** Update File: a.go\n*** Move to: b.go\n*** End Patch"]}`), "Edit", "a.go\nb.go"},
		{call("shell_command", `{"command":"make test"}`), "Bash", "make test"},
		{call("exec_command", `{"cmd":"go vet ./..."}`), "Bash", "go vet ./..."},
		{call("apply_patch", `{"input":"*** Begin Patch\n*** Delete File: old.txt\n*** End Patch"}`), "Edit", "old.txt"},
		{`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Add File: x\n+1\n*** Add File: y\n+2\n*** End Patch","call_id":"c"}}`, "Edit", "x\ny"},
		{call("github__search_issues", `{"q":"bug"}`), "mcp__github__search_issues", `{"q":"bug"}`},
		{call("mcp__github__search_issues", `{}`), "mcp__github__search_issues", ""},
		{`{"type":"response_item","payload":{"type":"function_call","namespace":"mcp__docs","name":"lookup","arguments":"{}","call_id":"c"}}`, "mcp__docs__lookup", ""},
		{call("update_plan", `{"plan":[{"step":"a","status":"pending"}]}`), "update_plan", `{"plan":[{"step":"a","status":"pending"}]}`},
		{call("write_stdin", `{"session_id":3,"chars":"y\n"}`), "write_stdin", "y\n"},
		{call("view_image", `not json`), "view_image", "not json"},
		{`{"type":"response_item","payload":{"type":"local_shell_call","call_id":"c","status":"completed","action":{"type":"exec","command":["bash","-lc","pwd"]}}}`, "Bash", "pwd"},
	}
	for _, c := range cases {
		p, _ := NewParser(nil)
		out := feed(t, p, c.line)
		if len(out) != 1 || out[0].Type != event.ToolUse || out[0].Name != c.name || out[0].Input != c.input {
			t.Errorf("%s\n  got %s", c.line, eventtest.Describe(out))
		}
	}
	p, _ := NewParser(nil)
	out := feed(t, p, `{"type":"response_item","payload":{"type":"web_search_call","id":"ws1","status":"completed","action":{"type":"search","query":"codex hooks"}}}`)
	if len(out) != 2 || out[0].Name != ToolWebSearch || out[0].Input != "codex hooks" || out[1].Type != event.ToolResult || out[1].ToolUseID != "ws1" {
		t.Errorf("web search: %s", eventtest.Describe(out))
	}
}

func TestResultErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		output string // JSON value of "output"
		failed bool
		text   string
	}{
		{`"Chunk ID: a\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\nok\n"`, false, "ok\n"},
		{`"Chunk ID: a\nWall time: 0 seconds\nProcess exited with code 127\nOutput:\nnope\n"`, true, "nope\n"},
		{`"Chunk ID: a\nWall time: 1 seconds\nProcess running with session ID 4\nOutput:\npartial"`, false, "partial"},
		{`"Exit code: 1\nWall time: 0 seconds\nOutput:\npatch failed"`, true, "patch failed"},
		{`"{\"output\":\"x\",\"metadata\":{\"exit_code\":0}}"`, false, "x"},
		{`"{\"output\":\"x\",\"metadata\":{\"exit_code\":1}}"`, true, "x"},
		{`"{not the wrapper"`, false, "{not the wrapper"},
		{`"plain words"`, false, "plain words"},
		{`"[{\"type\":\"text\",\"text\":\"from mcp\"}]"`, false, "from mcp"},
		{`"[1, 2, 3]"`, false, "[1, 2, 3]"},
		{`"[1/3] building"`, false, "[1/3] building"},
		{`[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]`, false, "a\nb"},
		{`{"content":"denied","success":false}`, true, "denied"},
	}
	for _, c := range cases {
		p, _ := NewParser(nil)
		out := feed(t, p, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":`+c.output+`}}`)
		if len(out) != 1 || out[0].IsError != c.failed || out[0].Output != c.text {
			t.Errorf("%s: %s", c.output, eventtest.Describe(out))
		}
	}
}

func TestPromptsAndPreambles(t *testing.T) {
	t.Parallel()
	user := func(text string) string {
		return fmt.Sprintf(`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}}`, text)
	}
	cases := []struct {
		text, content string
		system        bool
	}{
		{"fix the bug", "fix the bug", false},
		{"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>", "", true},
		{"<user_instructions>\nbe nice\n</user_instructions>", "", true},
		{"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>x</INSTRUCTIONS>", "", true},
		{"<permissions instructions>\nno net\n</permissions instructions>", "", true},
		{"<b>bold</b> claim by the person", "", false},
		{`<hook_prompt hook_run_id="stop:0:/h/config.toml">` + event.InjectedMarker + `m1] hi</hook_prompt>`, event.InjectedMarker + "m1] hi", false},
		{`<hook_prompt hook_run_id="stop:0:/h/config.toml">keep going</hook_prompt>`, "keep going", true},
	}
	for _, c := range cases {
		p, _ := NewParser(nil)
		out := feed(t, p, `{"type":"event_msg","payload":{"type":"task_started"}}`, user(c.text))
		want := c.content
		if want == "" {
			want = c.text
		}
		if len(out) != 1 || out[0].Type != event.User || out[0].System != c.system || out[0].Content != want {
			t.Errorf("%q: %s", c.text, eventtest.Describe(out))
		}
	}
	p, _ := NewParser(nil)
	if out := feed(t, p, `{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions>"}]}}`); len(out) != 0 {
		t.Errorf("developer message shown: %s", eventtest.Describe(out))
	}
}

func TestTurnsUsageAndPrice(t *testing.T) {
	t.Parallel()
	var priced []string
	p, _ := NewParser(nil)
	p.Price = func(model string, u event.Usage) (float64, bool) {
		priced = append(priced, model)
		return float64(u.InputTokens+u.CacheReadTokens+u.OutputTokens) / 1e6, model == "gpt-5.5"
	}
	rec := func(resp string, in, cached, out, reasoning int) string {
		return fmt.Sprintf(`{"type":"token_usage_record","payload":{"response_id":%q,"usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d,"reasoning_output_tokens":%d}}}`, resp, in, cached, out, reasoning)
	}
	out := feed(t, p,
		`{"type":"turn_context","payload":{"model":"gpt-5.5"}}`,
		`{"timestamp":"2026-12-02T10:00:00Z","type":"event_msg","payload":{"type":"task_started","turn_id":"u1"}}`,
		rec("r1", 1000, 600, 50, 10),
		rec("r1", 1000, 600, 50, 10), // written twice: counted once
		`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":9},"last_token_usage":{"input_tokens":9}}}}`,
		rec("r2", 500, 0, 20, 0),
		`{"timestamp":"2026-12-02T10:00:03Z","type":"event_msg","payload":{"type":"task_complete","duration_ms":2500}}`,
		`{"type":"turn_context","payload":{"model":"o9-unknown"}}`,
		`{"timestamp":"2026-12-02T10:01:00Z","type":"event_msg","payload":{"type":"task_started"}}`,
		`{"timestamp":"2026-12-02T10:01:02Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`)
	var turns []event.Event
	for _, e := range out {
		if e.Type == event.TurnComplete {
			turns = append(turns, e)
		}
	}
	if len(turns) != 2 {
		t.Fatalf("turns: %s", eventtest.Describe(out))
	}
	want := event.Usage{InputTokens: 900, CacheReadTokens: 600, OutputTokens: 70, ReasoningOutputTokens: 10}
	// Priced response by response: (400+600+50) + (500+20) tokens.
	if turns[0].Usage != want || turns[0].DurationMS != 2500 || turns[0].Model != "gpt-5.5" || !turns[0].CostKnown || math.Abs(turns[0].CostUSD-1570.0/1e6) > 1e-12 {
		t.Errorf("first turn: %+v", turns[0])
	}
	if turns[0].Interrupted {
		t.Errorf("a completed turn marked interrupted: %+v", turns[0])
	}
	if !turns[1].Interrupted || turns[1].CostKnown || turns[1].DurationMS != 2000 || turns[1].Model != "o9-unknown" {
		t.Errorf("aborted turn: %+v", turns[1])
	}
	if got := strings.Join(priced, ","); got != "gpt-5.5,gpt-5.5,o9-unknown" {
		t.Errorf("priced %s: once per response, and the empty turn once", got)
	}
	if p.InTurn() {
		t.Error("turn open after turn_aborted")
	}
	// Without an injected price, nothing is priced: cost_known false.
	q, _ := NewParser(nil)
	end := q.EndTurn(feed(t, q, `{"type":"event_msg","payload":{"type":"task_started"}}`, rec("r", 10, 0, 1, 0)))
	if len(end) != 1 || end[0].CostKnown || end[0].CostUSD != 0 {
		t.Errorf("default price: %+v", end)
	}
}

func TestLegacyTurnEndsOnQuiet(t *testing.T) {
	t.Parallel()
	p, _ := NewParser(nil)
	tc := func(total, last int) string {
		return fmt.Sprintf(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"total_tokens":%d},"last_token_usage":{"input_tokens":%d}}}}`, total, total, last)
	}
	out := feed(t, p,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}`,
		tc(100, 100), tc(100, 100), // repeated before the next call
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}}`)
	if !p.InTurn() || !p.Unsure() {
		t.Fatal("legacy turn not open and unsure")
	}
	if ended := p.Quiet(nil); len(ended) != 0 {
		t.Fatal("quiet ended a turn with a tool call open")
	}
	out = feed(t, p,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}`,
		tc(250, 150),
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}`)
	if p.Quiet(nil) == nil {
		t.Fatal("quiet did not end the legacy turn")
	}
	_ = out
	q, _ := NewParser(nil)
	feed(t, q, `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}`, tc(100, 100), tc(100, 100), tc(250, 150))
	ended := q.EndTurn(nil)
	if len(ended) != 1 || ended[0].Usage.InputTokens != 250 {
		t.Errorf("repeated token_count counted: %+v", ended)
	}
}

func TestNeedsInput(t *testing.T) {
	t.Parallel()
	p, _ := NewParser(nil)
	feed(t, p, `{"type":"event_msg","payload":{"type":"task_started"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"request_user_input","arguments":"{\"questions\":[]}","call_id":"q1"}}`)
	if r, ok := p.NeedsInput(); !ok || r != "question" {
		t.Fatalf("question: %q %v", r, ok)
	}
	feed(t, p, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"q1","output":"blue"}}`)
	if _, ok := p.NeedsInput(); ok {
		t.Fatal("still waiting after the answer")
	}
	feed(t, p, `{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{}","call_id":"open"}}`,
		`{"type":"event_msg","payload":{"type":"exec_approval_request","call_id":"x"}}`)
	if r, ok := p.NeedsInput(); !ok || r != ReasonApproval {
		t.Fatalf("approval: %q %v", r, ok)
	}
	feed(t, p, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"other","output":"ran"}}`)
	if _, ok := p.NeedsInput(); ok {
		t.Fatal("still waiting after the approved command ran")
	}
	feed(t, p, `{"type":"event_msg","payload":{"type":"apply_patch_approval_request"}}`)
	p.EndTurn(nil)
	if _, ok := p.NeedsInput(); ok || len(p.State().Tools) != 0 {
		t.Fatalf("waiting or calls open after the turn ended: %+v", p.State())
	}
}

// TestAskLastsUntilTheConversationMovesOn: a wait the PermissionRequest
// hook announced outlives the tool call's own line (which 0.169 may write
// after the hook ran) and the response's usage record, and ends with the
// call's result, a message, or the turn.
func TestAskLastsUntilTheConversationMovesOn(t *testing.T) {
	t.Parallel()
	call := `{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"touch x\"}","call_id":"c1"}}`
	usage := `{"type":"token_usage_record","payload":{"response_id":"r1","usage":{"input_tokens":100,"output_tokens":20}}}`
	for _, tc := range []struct {
		name, after string
		ends        bool
	}{
		{"the call's line", call, false},
		{"a second call", strings.Replace(call, "c1", "c2", 1), false},
		{"usage", usage, false},
		{"reasoning", `{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"hm"}]}}`, false},
		{"the result", `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"rejected by user"}}`, true},
		{"a message", `{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}}`, true},
		{"the turn's end", `{"type":"event_msg","payload":{"type":"task_complete"}}`, true},
		{"an abort", `{"type":"event_msg","payload":{"type":"turn_aborted"}}`, true},
		{"a new turn", `{"type":"event_msg","payload":{"type":"task_started"}}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := NewParser(nil)
			feed(t, p, `{"type":"event_msg","payload":{"type":"task_started"}}`)
			p.Ask(ReasonApproval)
			if r, ok := p.NeedsInput(); !ok || r != ReasonApproval {
				t.Fatalf("after Ask: %q %v", r, ok)
			}
			// The wait survives a restart: it is part of the saved state.
			saved, _ := p.Save()
			p, _ = NewParser(saved)
			feed(t, p, tc.after)
			if _, waiting := p.NeedsInput(); waiting == tc.ends {
				t.Errorf("waiting=%v after %s", waiting, tc.name)
			}
		})
	}
}
