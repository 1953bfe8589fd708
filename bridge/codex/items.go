package codex

import (
	"bytes"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/event"
)

// Tool names as a reader of the stream expects them (the names Claude
// Code's tools have), so a viewer badges Codex's calls the same way.
const (
	ToolShell     = "Bash"      // shell, shell_command, exec_command, local_shell_call
	ToolPatch     = "Edit"      // apply_patch, with the patched paths as input
	ToolWebSearch = "WebSearch" // web_search_call, with the query as input
)

// mcpName names an MCP tool the way Claude Code does,
// mcp__<server>__<tool>. Codex 0.47 offers MCP tools to the model as
// <server>__<tool>; none of its own tools has "__" in its name.
func mcpName(name string) string {
	if strings.Contains(name, "__") && !strings.HasPrefix(name, "mcp__") {
		return "mcp__" + name
	}
	return name
}

// questionTool is the tool 0.169 offers the model to ask the person a
// question: Codex waits for the answer until its output is recorded.
const questionTool = "request_user_input"

func (p *Parser) responseItem(pl *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	switch string(pl.GetStringBytes("type")) {
	case "message":
		return p.message(pl, ts, out)
	case "reasoning":
		text := joinText(pl.GetArray("summary"), "text", "\n\n")
		if len(text) == 0 {
			return out // encrypted reasoning only
		}
		p.touch(ts)
		e := event.Event{Type: event.Thinking, TS: ts}
		e.Content, e.Truncated = cut(text)
		return append(out, e)
	case "function_call":
		name := mcpName(string(pl.GetStringBytes("name")))
		if ns := pl.GetStringBytes("namespace"); len(ns) > 0 {
			name = string(ns) + "__" + name
		}
		return p.toolUse(ts, string(pl.GetStringBytes("call_id")), name, pl.GetStringBytes("arguments"), false, out)
	case "custom_tool_call":
		return p.toolUse(ts, string(pl.GetStringBytes("call_id")), string(pl.GetStringBytes("name")), pl.GetStringBytes("input"), true, out)
	case "local_shell_call":
		id := string(pl.GetStringBytes("call_id"))
		if id == "" {
			id = string(pl.GetStringBytes("id"))
		}
		cmd, _ := commandText(pl.Get("action", "command"))
		return p.toolUseNamed(ts, id, ToolShell, cmd, out)
	case "web_search_call":
		return p.webSearch(pl, ts, out)
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		return p.toolResult(pl, ts, out)
	}
	return out
}

func (p *Parser) message(pl *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	content := pl.GetArray("content")
	if role := string(pl.GetStringBytes("role")); (role == "assistant" || role == "user") && p.state.WaitCall == "" {
		p.state.Waiting = "" // an approval's wait is over: the conversation moved on
	}
	switch string(pl.GetStringBytes("role")) {
	case "assistant":
		text := joinText(content, "text", "\n")
		if len(text) == 0 {
			return out
		}
		t := p.touch(ts)
		e := event.Event{Type: event.Assistant, TS: ts}
		e.Content, e.Truncated = cut(text)
		p.state.LastText = e.Content
		// Before 0.169 nothing marks a turn's end: an agent message with
		// no tool call open is most likely it.
		t.Unsure = len(p.state.Tools) == 0
		return append(out, e)
	case "user":
		// Each input part is its own record: Codex sends its preambles
		// (<environment_context>, <user_instructions>, AGENTS.md) as user
		// messages of their own, but one message can hold several parts.
		for _, c := range content {
			text := c.GetStringBytes("text")
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			out = p.prompt(text, ts, out)
		}
	}
	// developer and system messages are Codex's instructions to the model.
	return out
}

func (p *Parser) prompt(text []byte, ts time.Time, out []event.Event) []event.Event {
	system := isPreamble(text)
	if inner, ok := hookPrompt(text); ok {
		// A Stop hook's "block" reason comes back as a user message of
		// its own: a message the bridge delivered that way is the
		// person's input; any other hook's is Codex's.
		text, system = inner, !bytes.Contains(inner, []byte(event.InjectedMarker))
	}
	e := event.Event{Type: event.User, TS: ts, System: system}
	e.Content, e.Truncated = cut(text)
	if e.System {
		return append(out, e)
	}
	if !p.state.Exact {
		// 0.47: a prompt proves the previous turn ended, unless a tool
		// call is still open (the person typed while Codex worked).
		if t := p.state.Turn; t != nil && t.Unsure && len(p.state.Tools) == 0 {
			out = p.endTurn(out, t.Last, 0)
		}
		if p.state.Turn == nil {
			p.startTurn(ts)
		}
	} else {
		p.touch(ts)
	}
	return append(out, e)
}

// preambles start the messages Codex writes as the user's but the person
// did not type.
var preambles = [][]byte{
	[]byte("<environment_context>"),
	[]byte("<user_instructions>"),
	[]byte("<user_shell_command>"),
	[]byte("<turn_aborted>"),
	[]byte("<subagent_notification>"),
	[]byte("<skill>"),
	[]byte("# AGENTS.md instructions for "),
}

var (
	hookOpen  = []byte("<hook_prompt")
	hookClose = []byte("</hook_prompt>")
)

// hookPrompt unwraps 0.169's <hook_prompt hook_run_id="…">reason</hook_prompt>.
func hookPrompt(text []byte) ([]byte, bool) {
	t := bytes.TrimSpace(text)
	if !bytes.HasPrefix(t, hookOpen) || !bytes.HasSuffix(t, hookClose) {
		return nil, false
	}
	start := bytes.IndexByte(t, '>')
	if start < 0 || start+1 > len(t)-len(hookClose) {
		return nil, false
	}
	return t[start+1 : len(t)-len(hookClose)], true
}

func isPreamble(text []byte) bool {
	text = bytes.TrimLeft(text, " \t\r\n")
	for _, p := range preambles {
		if bytes.HasPrefix(text, p) {
			return true
		}
	}
	// Any other whole-message XML-ish block Codex adds (<permissions
	// instructions>, <collaboration_mode>, …): one tag that wraps it all.
	if len(text) > 2 && text[0] == '<' {
		end := bytes.IndexByte(text, '>')
		if end > 1 {
			tail := bytes.TrimRight(text, " \t\r\n")
			whole := text[1:end] // "<permissions instructions>" closes as a whole
			first := whole
			if i := bytes.IndexByte(whole, ' '); i > 0 {
				first = whole[:i] // "<skill name=…>" closes as "</skill>"
			}
			for _, name := range [][]byte{whole, first} {
				closing := append(append([]byte("</"), name...), '>')
				if bytes.HasSuffix(tail, closing) {
					return true
				}
			}
		}
	}
	return false
}

func (p *Parser) toolUse(ts time.Time, id, name string, args []byte, custom bool, out []event.Event) []event.Event {
	shown, input := toolView(name, args, custom)
	if name == questionTool {
		p.state.Waiting, p.state.WaitCall = ReasonQuestion, id
	}
	return p.toolUseNamed(ts, id, shown, input, out)
}

func (p *Parser) toolUseNamed(ts time.Time, id, name, input string, out []event.Event) []event.Event {
	t := p.touch(ts)
	t.Unsure = false
	e := event.Event{Type: event.ToolUse, TS: ts, Name: name, ToolUseID: id}
	e.Input, e.TruncIn = cutString(input)
	if id != "" {
		if p.state.Tools == nil {
			p.state.Tools = make(map[string]string)
		}
		p.state.Tools[id] = name
	}
	return append(out, e)
}

func (p *Parser) webSearch(pl *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	id := string(pl.GetStringBytes("id"))
	query := pl.GetStringBytes("action", "query")
	if len(query) == 0 {
		query = pl.GetStringBytes("action", "url")
	}
	t := p.touch(ts)
	t.Unsure = false
	use := event.Event{Type: event.ToolUse, TS: ts, Name: ToolWebSearch, ToolUseID: id}
	use.Input, use.TruncIn = cut(query)
	// A web search is one item, call and result at once.
	res := event.Event{Type: event.ToolResult, TS: ts, Name: ToolWebSearch, ToolUseID: id,
		IsError: string(pl.GetStringBytes("status")) == "failed"}
	res.Output = string(pl.GetStringBytes("status"))
	return append(out, use, res)
}

func (p *Parser) toolResult(pl *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	id := string(pl.GetStringBytes("call_id"))
	name, known := p.state.Tools[id]
	delete(p.state.Tools, id)
	if (id != "" && id == p.state.WaitCall) || p.state.WaitCall == "" {
		// The question is answered, or a wait with no call of its own
		// (an approval) is over: the approved command ran, or was refused.
		p.state.Waiting, p.state.WaitCall = "", ""
	}
	if !known {
		name = ""
	}
	p.touch(ts)
	text, failed := resultText(pl.Get("output"))
	e := event.Event{Type: event.ToolResult, TS: ts, Name: name, ToolUseID: id, IsError: failed}
	e.Output, e.TruncOut = cut(text)
	return append(out, e)
}
