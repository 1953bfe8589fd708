package conductor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// rowsOf makes rows as Conductor writes them, a second apart: a string is
// a typed prompt, anything else a frame.
func rowsOf(t *testing.T, first int64, items ...any) []Row {
	t.Helper()
	at := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	var rows []Row
	for i, it := range items {
		r := Row{RowID: first + int64(i), ID: fmt.Sprintf("m-%d", first+int64(i)), Session: "s-tab", Role: "user",
			CreatedAt: at.Add(time.Duration(first+int64(i)) * time.Second).Format("2006-01-02 15:04:05")}
		if s, ok := it.(string); ok {
			r.Content = s
		} else {
			b, err := json.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			r.Role, r.Content = "assistant", string(b)
		}
		rows = append(rows, r)
	}
	return rows
}

// feed parses rows with p and returns the events.
func feed(t *testing.T, p *Parser, rows []Row) []event.Event {
	t.Helper()
	var out []event.Event
	for i := range rows {
		var err error
		if out, err = p.Line(rows[i].Line(), out); err != nil {
			t.Fatalf("row %d: %v", rows[i].RowID, err)
		}
	}
	return out
}

func result(total float64, ms int, in, out int, process map[string][2]int) obj {
	r := obj{"type": "result", "subtype": "success", "total_cost_usd": total, "duration_ms": ms,
		"usage": obj{"input_tokens": in, "output_tokens": out}}
	if process != nil {
		mu := obj{}
		for model, t := range process {
			mu[model] = obj{"inputTokens": t[0], "outputTokens": t[1], "costUSD": 0}
		}
		r["modelUsage"] = mu
	}
	return r
}

func reply(id, text string, in, out int) obj {
	return obj{"type": "assistant", "message": obj{"id": id, "model": "claude-opus-5-5",
		"content": []any{obj{"type": "text", "text": text}}, "usage": obj{"input_tokens": in, "output_tokens": out}}}
}

// TestParserTurns: each turn's end, cost and duration as the frames say
// them. Claude Code restates its process's cost in every result (its
// modelUsage counts the process's tokens, usage the turn's), so a later
// turn costs the difference; the first result of a process (modelUsage
// equal to usage) is its own cost; "aborted by user" ends the turn with
// its cost unknown when it spent anything, and the result the agent
// writes after it ends nothing more.
func TestParserTurns(t *testing.T) {
	opus := "claude-opus-5-5"
	cases := []parserCase{
		{"a process's turns restate its cost", []any{
			"one", reply("m1", "first", 100, 10), result(0.0016, 700, 100, 10, map[string][2]int{opus: {100, 10}}),
			"two", reply("m2", "second", 100, 10), result(0.0040, 500, 100, 10, map[string][2]int{opus: {200, 20}}),
		}, []string{
			`user "one" cut=false`, `assistant "first" cut=false`, `turn_complete $0.0016 700ms in=100 out=10 model=claude-opus-5-5`,
			`user "two" cut=false`, `assistant "second" cut=false`, `turn_complete $0.0024 500ms in=100 out=10 model=claude-opus-5-5`,
		}},
		{"a new process starts its count again", []any{
			"one", reply("m1", "first", 100, 10), result(0.0300, 700, 100, 10, map[string][2]int{opus: {100, 10}}),
			"two", reply("m2", "second", 100, 10), result(0.0100, 500, 100, 10, map[string][2]int{opus: {100, 10}}),
		}, []string{
			`user "one" cut=false`, `assistant "first" cut=false`, `turn_complete $0.0300 700ms in=100 out=10 model=claude-opus-5-5`,
			`user "two" cut=false`, `assistant "second" cut=false`, `turn_complete $0.0100 500ms in=100 out=10 model=claude-opus-5-5`,
		}},
		{"joined a process mid-way: cost unknown", []any{
			"two", reply("m2", "second", 100, 10), result(0.0040, 500, 100, 10, map[string][2]int{opus: {200, 20}}),
		}, []string{
			`user "two" cut=false`, `assistant "second" cut=false`, `turn_complete unknown 500ms in=100 out=10 model=claude-opus-5-5`,
		}},
		{"another agent's result is its turn's own", []any{
			"go", reply("m1", "ok", 5, 5), result(0.5, 900, 5, 5, nil),
		}, []string{
			`user "go" cut=false`, `assistant "ok" cut=false`, `turn_complete $0.5000 900ms in=5 out=5 model=claude-opus-5-5`,
		}},
		{"aborted by user", []any{
			"long job", reply("m1", "starting", 300, 20),
			obj{"type": "assistant", "message": obj{"id": "m1", "model": opus, "content": []any{
				obj{"type": "tool_use", "id": "t1", "name": "Bash", "input": obj{"command": "sleep 100"}}}, "usage": obj{"input_tokens": 300, "output_tokens": 20}}},
			obj{"type": "error", "content": "aborted by user"},
			result(0.0100, 3000, 300, 20, map[string][2]int{opus: {300, 20}}),
			"next", reply("m2", "fine", 10, 1), result(0.0110, 200, 10, 1, map[string][2]int{opus: {310, 21}}),
		}, []string{
			`user "long job" cut=false`, `assistant "starting" cut=false`, `tool_use t1 Bash "sleep 100" cut=false`,
			`turn_complete unknown 3000ms interrupted in=300 out=20 model=claude-opus-5-5`,
			`user "next" cut=false`, `assistant "fine" cut=false`, `turn_complete $0.0010 200ms in=10 out=1 model=claude-opus-5-5`,
		}},
		{"aborted before anything was spent", []any{
			"oops", obj{"type": "error", "content": "aborted by user"},
		}, []string{
			`user "oops" cut=false`, `turn_complete $0.0000 1000ms interrupted in=0 out=0 model=`,
		}},
		{"Conductor's edit result shows its diff", []any{
			"edit", obj{"type": "assistant", "message": obj{"id": "m1", "content": []any{
				obj{"type": "tool_use", "id": "e1", "name": "Edit", "input": obj{"file_path": "/w/a.css", "old_string": "red", "new_string": "blue"}}}}},
			obj{"type": "user", "message": obj{"content": []any{obj{"type": "tool_result", "tool_use_id": "e1",
				"content": obj{"status": "success", "diffString": "-color: red\n+color: blue"}}}}},
			result(0.01, 100, 1, 1, nil),
		}, []string{
			`user "edit" cut=false`, `tool_use e1 Edit "/w/a.css" cut=false`,
			`tool_result e1 Edit "-color: red\n+color: blue" cut=false err=false`, `turn_complete $0.0100 100ms in=1 out=1 model=`,
		}},
		{"a prompt while the agent works joins its turn", []any{
			"one", reply("m1", "working", 1, 1), "also this", reply("m2", "both done", 1, 1), result(0.01, 100, 2, 2, nil),
		}, []string{
			`user "one" cut=false`, `assistant "working" cut=false`, `user "also this" cut=false`,
			`assistant "both done" cut=false`, `turn_complete $0.0100 100ms in=2 out=2 model=claude-opus-5-5`,
		}},
	}
	runCases(t, cases)
}

// TestParserRows: what a row holds besides frames — a cancelled queued
// prompt, Conductor's own instructions, an assistant's plain text, the
// row read last handed over again, a line that is no row.
func TestParserRows(t *testing.T) {
	p := &Parser{}
	rows := rowsOf(t, 1, "<system_instruction> You are working inside Conductor </system_instruction> fix it", "taken back", "real prompt")
	rows[1].Cancelled = true
	rows = append(rows, Row{RowID: 4, ID: "m-4", Role: "assistant", Content: "plain answer", CreatedAt: "2026-12-05T09:00:04.000Z"})
	got := describe(feed(t, p, append(rows, rows[3])))
	want := `user system "<system_instruction> You are working inside Conductor </system_instruction> fix it" cut=false
user "real prompt" cut=false
assistant "plain answer" cut=false
`
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if c := p.Cursor(); c != (Cursor{Row: 4, Key: "m-4"}) {
		t.Errorf("cursor %+v, want row 4 m-4", c)
	}
	for _, bad := range []string{"", "not json", `{"frame":{}}`, `[1]`, `{"row":"7"}`} {
		if out, err := p.Line([]byte(bad), nil); !errors.Is(err, ErrNotRow) || len(out) != 0 {
			t.Errorf("%q: %v, %d events; want ErrNotRow and none", bad, err, len(out))
		}
	}
	if c := p.Cursor(); c != (Cursor{Row: 4, Key: "m-4"}) {
		t.Errorf("a bad line moved the cursor to %+v", c)
	}
}

// TestParserRowLine: a frame goes into the line as JSON, anything else as
// text, the JSON escaped; a row whose content only looks like JSON is
// text.
func TestParserRowLine(t *testing.T) {
	for _, c := range []struct {
		content string
		frame   bool
	}{
		{`{"type":"assistant"}`, true},
		{"  {\"type\":\"result\"}\n", true},
		{`{"type":`, false},
		{`["a"]`, false},
		{"line \"one\"\n\u2028 <b>", false},
		{"bad \xff utf8", false},
	} {
		r := Row{RowID: 9, ID: "x", Role: "user", Content: c.content}
		var v map[string]json.RawMessage
		if err := json.Unmarshal(r.Line(), &v); err != nil {
			t.Fatalf("%q: line %s is not JSON: %v", c.content, r.Line(), err)
		}
		if _, ok := v["frame"]; ok != c.frame {
			t.Errorf("%q: frame %v, want %v (line %s)", c.content, ok, c.frame, r.Line())
		}
	}
}

// TestParserAgentsOwnFrames: content.rawPayload in each agent's own
// format — Codex's exec events, the Cursor CLI's tool calls, ACP session
// updates (OpenCode), Claude Code's stream-json — and as JSON text.
func TestParserAgentsOwnFrames(t *testing.T) {
	raw := func(v any) obj { return obj{"type": "assistant", "content": obj{"rawPayload": v}} }
	cases := []parserCase{
		{"codex", []any{
			"list files",
			raw(obj{"type": "thread.started", "thread_id": "th-1"}),
			raw(obj{"type": "turn.started"}),
			raw(obj{"type": "item.completed", "item": obj{"id": "item_0", "type": "reasoning", "text": "**Listing**"}}),
			raw(obj{"type": "item.started", "item": obj{"id": "item_1", "type": "command_execution", "command": "bash -lc ls", "status": "in_progress"}}),
			raw(obj{"type": "item.completed", "item": obj{"id": "item_1", "type": "command_execution", "command": "bash -lc ls", "aggregated_output": "a.go\n", "exit_code": 0, "status": "completed"}}),
			raw(obj{"type": "item.completed", "item": obj{"id": "item_2", "type": "file_change", "changes": []any{obj{"path": "a.go", "kind": "update"}}, "status": "completed"}}),
			raw(obj{"type": "item.completed", "item": obj{"id": "item_3", "type": "agent_message", "text": "Done."}}),
			raw(obj{"type": "turn.completed", "usage": obj{"input_tokens": 1000, "cached_input_tokens": 400, "output_tokens": 50}}),
		}, []string{
			`user "list files" cut=false`, `thinking "**Listing**" cut=false`,
			`tool_use item_1 Bash "bash -lc ls" cut=false`, `tool_result item_1 Bash "a.go\n" cut=false err=false`,
			`tool_use item_2 Edit "a.go" cut=false`, `tool_result item_2 Edit "completed" cut=false err=false`,
			`assistant "Done." cut=false`, `turn_complete unknown 8000ms in=600 out=50 model=`,
		}},
		{"cursor cli", []any{
			"read it",
			raw(obj{"type": "tool_call", "subtype": "started", "call_id": "c1", "tool_call": obj{"readToolCall": obj{"args": obj{"path": "x.txt"}}}}),
			raw(obj{"type": "tool_call", "subtype": "completed", "call_id": "c1", "tool_call": obj{"readToolCall": obj{"args": obj{"path": "x.txt"},
				"result": obj{"success": obj{"content": "hello", "totalLines": 1}}}}}),
			raw(obj{"type": "tool_call", "subtype": "completed", "call_id": "c2", "tool_call": obj{"shellToolCall": obj{"args": obj{"command": "false"},
				"result": obj{"error": obj{"message": "exit 1"}}}}}),
			raw(obj{"type": "status", "status": "CANCELLED"}),
		}, []string{
			`user "read it" cut=false`, `tool_use c1 Read "x.txt" cut=false`, `tool_result c1 Read "hello" cut=false err=false`,
			`tool_use c2 Bash "false" cut=false`, `tool_result c2 Bash "exit 1" cut=false err=true`,
			`turn_complete $0.0000 4000ms interrupted in=0 out=0 model=`,
		}},
		{"acp", []any{
			"hi",
			raw(obj{"sessionId": "ses_1", "update": obj{"sessionUpdate": "agent_thought_chunk", "content": obj{"type": "text", "text": "hmm"}}}),
			raw(obj{"jsonrpc": "2.0", "method": "session/update", "params": obj{"sessionId": "ses_1", "update": obj{"sessionUpdate": "tool_call",
				"toolCallId": "call_1", "title": "bash", "kind": "execute", "status": "pending", "rawInput": obj{"command": "pwd"}}}}),
			raw(obj{"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed",
				"content": []any{obj{"type": "content", "content": obj{"type": "text", "text": "/w/tokyo"}}}}),
			raw(obj{"sessionUpdate": "agent_message_chunk", "content": obj{"type": "text", "text": "You are in tokyo."}}),
			obj{"type": "result", "total_cost_usd": 0.002, "duration_ms": 1500},
		}, []string{
			`user "hi" cut=false`, `thinking "hmm" cut=false`, `tool_use call_1 bash "pwd" cut=false`,
			`tool_result call_1 bash "/w/tokyo" cut=false err=false`, `assistant "You are in tokyo." cut=false`,
			`turn_complete $0.0020 1500ms in=0 out=0 model=`,
		}},
		{"claude stream-json as JSON text", []any{
			"q",
			raw(`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"mcp__conductor__AskUserQuestion","input":{"question":"Which colour?"}}]}}`),
		}, []string{
			`user "q" cut=false`, `tool_use t1 mcp__conductor__AskUserQuestion "{\"question\":\"Which colour?\"}" cut=false`,
		}},
	}
	runCases(t, cases)
}

// TestParserWaitsForAQuestion: an unanswered question tool call is the
// agent waiting for the person, saved with the state; its answer ends
// the wait.
func TestParserWaitsForAQuestion(t *testing.T) {
	p := &Parser{}
	feed(t, p, rowsOf(t, 1, "pick", obj{"type": "assistant", "message": obj{"id": "m1", "content": []any{
		obj{"type": "tool_use", "id": "q1", "name": "mcp__conductor__AskUserQuestion", "input": obj{"question": "Red or blue?"}}}}}))
	if w := p.Waiting(); w != event.ReasonQuestion {
		t.Fatalf("waiting %q, want %q", w, event.ReasonQuestion)
	}
	saved, err := p.Save()
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewParser(saved)
	if err != nil {
		t.Fatal(err)
	}
	if w := q.Waiting(); w != event.ReasonQuestion || !q.InTurn() {
		t.Fatalf("resumed: waiting %q, in turn %v", w, q.InTurn())
	}
	feed(t, q, rowsOf(t, 3, obj{"type": "user", "message": obj{"content": []any{obj{"type": "tool_result", "tool_use_id": "q1", "content": "blue"}}}}))
	if w := q.Waiting(); w != "" {
		t.Errorf("still waiting (%q) after the answer", w)
	}
	if _, err := NewParser(json.RawMessage(`{"turn":`)); err == nil {
		t.Error("a damaged state resumed without error")
	}
}

// parserCase is rows and the events they must give, one line each.
type parserCase struct {
	name  string
	items []any
	want  []string
}

func runCases(t *testing.T, cases []parserCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := describe(feed(t, &Parser{}, rowsOf(t, 1, c.items...)))
			if want := strings.Join(c.want, "\n") + "\n"; got != want {
				t.Errorf("\n got %s\nwant %s", got, want)
			}
		})
	}
}
