package conductor

import (
	"strings"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/event"
)

// raw reads an agent's own frame (content.rawPayload). Told apart by
// shape: Codex's exec events (thread./turn./item.), the Cursor SDK's run
// messages (tool_call, thinking, status, usage, its run stream's
// sdk_message and result), ACP session updates (OpenCode), and
// Claude-style frames, which Claude Code's and the Cursor SDK's
// assistant and user messages are.
func (p *Parser) raw(v *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	typ := string(v.GetStringBytes("type"))
	if typ == "sdk_message" && v.Get("message") != nil {
		v = v.Get("message")
		typ = string(v.GetStringBytes("type"))
	}
	if u := acpUpdate(v); u != nil {
		return p.acp(u, ts, out)
	}
	switch {
	case typ == "thread.started":
		if id := v.GetStringBytes("thread_id"); len(id) > 0 {
			p.State.SessionID = string(id)
		}
		return out
	case strings.HasPrefix(typ, "turn.") || strings.HasPrefix(typ, "item."):
		return p.codex(v, typ, ts, out)
	case typ == "tool_call":
		return p.cursorTool(v, ts, out)
	case typ == "thinking":
		return p.text(event.Event{TS: ts, SessionID: p.State.SessionID}, event.Thinking, v.GetStringBytes("text"), out)
	case typ == "status" || (typ == "result" && v.Get("status") != nil):
		return p.runStatus(string(v.GetStringBytes("status")), ts, out)
	case typ == "usage":
		p.usage("", "", cursor.Tokens(v.Get("usage")), ts)
		return out
	}
	return p.envelope(v, ts, out)
}

// runStatus ends the turn when a Cursor run ends (cursor.RunEnd).
func (p *Parser) runStatus(status string, ts time.Time, out []event.Event) []event.Event {
	ended, stopped, working := cursor.RunEnd(status)
	switch {
	case ended:
		return p.endTurn(out, ts, ending{stopped: stopped})
	case working:
		p.touch(ts)
	}
	return out
}

// cursorTool reads a Cursor tool call (cursor.ReadCall): its call is
// emitted once, its result when it is done.
func (p *Parser) cursorTool(v *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	base := event.Event{TS: ts, SessionID: p.State.SessionID}
	c := cursor.ReadCall(v)
	if _, asked := p.State.Tools[c.ID]; !asked || c.ID == "" {
		out = p.toolUse(base, c.ID, c.Name, c.Input, c.TruncIn, out)
	}
	if !c.Done {
		return out
	}
	return p.toolResult(base, c.ID, c.Output, c.TruncOut, c.IsError, out)
}

// codex reads Codex's exec events: items as they start and complete, and
// the turn's end with its usage.
func (p *Parser) codex(v *fastjson.Value, typ string, ts time.Time, out []event.Event) []event.Event {
	base := event.Event{TS: ts, SessionID: p.State.SessionID}
	switch typ {
	case "turn.started":
		p.touch(ts)
		return out
	case "turn.completed":
		usage := openAIUsage(v.Get("usage"))
		return p.endTurn(out, ts, ending{usage: &usage})
	case "turn.failed":
		return p.endTurn(out, ts, ending{})
	}
	item := v.Get("item")
	if item == nil {
		return out
	}
	id := string(item.GetStringBytes("id"))
	done := typ == "item.completed"
	switch string(item.GetStringBytes("type")) {
	case "agent_message":
		if done {
			return p.text(base, event.Assistant, item.GetStringBytes("text"), out)
		}
	case "reasoning":
		if done {
			return p.text(base, event.Thinking, item.GetStringBytes("text"), out)
		}
	case "command_execution":
		out = p.codexCall(base, id, "Bash", item.Get("command"), out)
		if done {
			o, trunc := cut(item.GetStringBytes("aggregated_output"))
			failed := string(item.GetStringBytes("status")) == "failed" || item.GetInt("exit_code") != 0
			return p.toolResult(base, id, o, trunc, failed, out)
		}
	case "file_change":
		var paths []byte
		for i, c := range item.GetArray("changes") {
			if i > 0 {
				paths = append(paths, ' ')
			}
			paths = append(paths, c.GetStringBytes("path")...)
		}
		if _, seen := p.State.Tools[id]; !seen || id == "" {
			in, trunc := cut(paths)
			out = p.toolUse(base, id, "Edit", in, trunc, out)
		}
		if done {
			return p.toolResult(base, id, string(item.GetStringBytes("status")), false, string(item.GetStringBytes("status")) == "failed", out)
		}
	case "mcp_tool_call":
		name := "mcp__" + string(item.GetStringBytes("server")) + "__" + string(item.GetStringBytes("tool"))
		out = p.codexCall(base, id, name, item.Get("arguments"), out)
		if done {
			if e := item.Get("error"); e != nil && e.Type() != fastjson.TypeNull {
				o, trunc := agent.ResultText(e.Get("message"))
				return p.toolResult(base, id, o, trunc, true, out)
			}
			o, trunc := agent.ResultText(item.Get("result", "content"))
			return p.toolResult(base, id, o, trunc, false, out)
		}
	case "web_search":
		out = p.codexCall(base, id, "WebSearch", item.Get("query"), out)
		if done {
			return p.toolResult(base, id, "", false, false, out)
		}
	}
	return out
}

// codexCall emits a Codex item's tool call the first time it is seen.
func (p *Parser) codexCall(base event.Event, id, name string, input *fastjson.Value, out []event.Event) []event.Event {
	if _, seen := p.State.Tools[id]; seen && id != "" {
		return out
	}
	in, trunc := agent.ToolInput(input)
	return p.toolUse(base, id, name, in, trunc, out)
}

// acpUpdate is an ACP session update (what `opencode acp` and other ACP
// agents send), bare or in its notification.
func acpUpdate(v *fastjson.Value) *fastjson.Value {
	for _, u := range []*fastjson.Value{v, v.Get("update"), v.Get("params", "update")} {
		if u != nil && len(u.GetStringBytes("sessionUpdate")) > 0 {
			return u
		}
	}
	return nil
}

// acp reads one ACP session update: message and thought chunks, tool
// calls and their updates.
func (p *Parser) acp(u *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	base := event.Event{TS: ts, SessionID: p.State.SessionID}
	id := string(u.GetStringBytes("toolCallId"))
	switch string(u.GetStringBytes("sessionUpdate")) {
	case "agent_message_chunk":
		return p.text(base, event.Assistant, u.GetStringBytes("content", "text"), out)
	case "agent_thought_chunk":
		return p.text(base, event.Thinking, u.GetStringBytes("content", "text"), out)
	case "user_message_chunk":
		return p.echo(base, u.GetStringBytes("content", "text"), out)
	case "tool_call":
		name := string(u.GetStringBytes("title"))
		if name == "" {
			name = string(u.GetStringBytes("kind"))
		}
		if _, seen := p.State.Tools[id]; !seen || id == "" {
			in, trunc := agent.ToolInput(u.Get("rawInput"))
			out = p.toolUse(base, id, name, in, trunc, out)
		}
		return p.acpDone(base, u, out)
	case "tool_call_update":
		return p.acpDone(base, u, out)
	}
	return out
}

// acpDone emits a tool call's result once its status says it finished.
func (p *Parser) acpDone(base event.Event, u *fastjson.Value, out []event.Event) []event.Event {
	status := string(u.GetStringBytes("status"))
	if status != "completed" && status != "failed" {
		return out
	}
	var text []byte
	for _, c := range u.GetArray("content") {
		if t := c.GetStringBytes("content", "text"); len(t) > 0 {
			if len(text) > 0 {
				text = append(text, '\n')
			}
			text = append(text, t...)
		}
	}
	o, trunc := cut(text)
	if len(text) == 0 {
		o, trunc = agent.ResultText(u.Get("rawOutput"))
	}
	return p.toolResult(base, string(u.GetStringBytes("toolCallId")), o, trunc, status == "failed", out)
}

// openAIUsage reads Codex's usage (OpenAI's convention: input includes
// cached input and cache writes) in the bridge's (Anthropic's: input
// excludes both).
func openAIUsage(u *fastjson.Value) event.Usage {
	n := func(key string) int64 { return event.Tokens(u.GetInt64(key)) }
	in, cached, write := n("input_tokens"), n("cached_input_tokens"), n("cache_write_input_tokens")
	fresh := in - cached - write
	if fresh < 0 { // another convention: keep what is certain
		fresh, write = max(in-cached, 0), 0
	}
	return event.Usage{InputTokens: fresh, CacheReadTokens: cached, CacheCreationTokens: write,
		OutputTokens: n("output_tokens"), ReasoningOutputTokens: n("reasoning_output_tokens")}
}
