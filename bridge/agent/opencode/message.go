package opencode

import (
	"slices"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/event"
)

// message handles a message.updated row: a user message opens a turn, an
// assistant message that completed with a final finish (anything but
// "tool-calls") or an error ends it.
func (p *Parser) message(info *fastjson.Value, out []event.Event) []event.Event {
	if info == nil || info.Type() != fastjson.TypeObject {
		return out
	}
	id := string(info.GetStringBytes("id"))
	created := millis(info.Get("time", "created"))
	switch string(info.GetStringBytes("role")) {
	case "user":
		if id == "" || id == p.state.User {
			return out // written again (its summary)
		}
		p.state.User = id
		p.state.Prompts++
		p.state.Error = ""
		if p.state.Turn == nil {
			p.state.Turn = &Turn{Start: created, Last: created}
		} else {
			p.touch(created) // queued while the turn ran: the same run goes on
		}
	case "assistant":
		if id == "" || id == p.state.Ended {
			return out
		}
		t := p.touch(created)
		if m := info.GetStringBytes("modelID"); len(m) > 0 {
			t.Model, _ = cut(m)
		}
		completed := millis(info.Get("time", "completed"))
		failed := errorText(info.Get("error"))
		finish := string(info.GetStringBytes("finish"))
		if failed == "" && (completed.IsZero() || finish == "tool-calls" || finish == "") {
			return out
		}
		p.state.Ended = id
		p.state.Error = failed
		out = p.endTurn(out, completed, created)
	}
	return out
}

// errorText is what an assistant message's error says: its message, else
// its name (MessageAbortedError when the person stopped the turn).
func errorText(v *fastjson.Value) string {
	if v == nil || v.Type() != fastjson.TypeObject {
		return ""
	}
	if m := v.GetStringBytes("data", "message"); len(m) > 0 {
		s, _ := cut(m)
		return s
	}
	s, _ := cut(v.GetStringBytes("name"))
	if s == "" {
		s = "error"
	}
	return s
}

// touch makes sure a turn is open (we may have joined mid-turn) and moves
// its last-activity time.
func (p *Parser) touch(ts time.Time) *Turn {
	if p.state.Turn == nil {
		p.state.Turn = &Turn{Start: ts, Last: ts}
	}
	if ts.After(p.state.Turn.Last) {
		p.state.Turn.Last = ts
	}
	return p.state.Turn
}

func (p *Parser) endTurn(out []event.Event, ts, fallback time.Time) []event.Event {
	t := p.state.Turn
	p.state.Turn, p.state.Tools = nil, nil // a call open when its turn ended is never answered
	if t == nil {
		return out
	}
	if ts.IsZero() {
		ts = fallback
	}
	if ts.IsZero() {
		ts = t.Last
	}
	e := event.Event{Type: event.TurnComplete, TS: ts, Usage: t.Usage, Model: t.Model,
		CostUSD: t.Cost, CostKnown: t.Cost > 0}
	if !t.Start.IsZero() && ts.After(t.Start) {
		e.DurationMS = ts.Sub(t.Start).Milliseconds()
	}
	if t.Cost == 0 && p.Price != nil {
		// OpenCode knows no price for the model (or nothing was used):
		// the bridge's table says whether it is free.
		e.CostUSD, e.CostKnown = p.Price(t.Model, t.Usage)
	}
	return append(out, e)
}

// said reports whether part id of message msg was emitted, and marks it.
func (p *Parser) said(msg, id string) bool {
	if msg != p.state.SaidMsg {
		p.state.SaidMsg, p.state.Said = msg, p.state.Said[:0]
	}
	if slices.Contains(p.state.Said, id) {
		return true
	}
	p.state.Said = append(p.state.Said, id)
	return false
}

// part handles a message.part.updated row.
func (p *Parser) part(part *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	if part == nil || part.Type() != fastjson.TypeObject {
		return out
	}
	id := string(part.GetStringBytes("id"))
	msg := string(part.GetStringBytes("messageID"))
	if id == "" {
		return out
	}
	switch string(part.GetStringBytes("type")) {
	case "text":
		text := part.GetStringBytes("text")
		if msg == p.state.User {
			if len(text) == 0 || p.said(msg, id) {
				return out
			}
			e := event.Event{Type: event.User, TS: ts, System: part.GetBool("synthetic")}
			e.Content, e.Truncated = cut(text)
			return append(out, e)
		}
		// An assistant text is written empty when it starts and whole when
		// it ends (time.end).
		if part.Get("time", "end") == nil || len(text) == 0 || p.said(msg, id) {
			return out
		}
		p.touch(ts)
		e := event.Event{Type: event.Assistant, TS: ts}
		e.Content, e.Truncated = cut(text)
		p.state.LastText, _ = event.Cut(e.Content, 200)
		return append(out, e)
	case "reasoning":
		text := part.GetStringBytes("text")
		if part.Get("time", "end") == nil || len(text) == 0 || p.said(msg, id) {
			return out
		}
		p.touch(ts)
		e := event.Event{Type: event.Thinking, TS: ts}
		e.Content, e.Truncated = cut(text)
		return append(out, e)
	case "tool":
		return p.tool(part, msg, id, ts, out)
	case "step-start":
		p.touch(ts)
	case "step-finish":
		p.step(part, id, ts)
	}
	return out
}

// tool handles a tool part: announced (tool_use) once its input is known
// (running), answered (tool_result) when it completed or failed. A part
// first seen done is announced and answered at once.
func (p *Parser) tool(part *fastjson.Value, msg, id string, ts time.Time, out []event.Event) []event.Event {
	st := part.Get("state")
	if st == nil || st.Type() != fastjson.TypeObject {
		return out
	}
	status := string(st.GetStringBytes("status"))
	if status != "running" && status != "completed" && status != "error" {
		return out // pending: its input is still streaming
	}
	tool := string(part.GetStringBytes("tool"))
	call := string(part.GetStringBytes("callID"))
	if call == "" {
		call = id
	}
	p.touch(ts)
	_, open := p.state.Tools[id]
	if status != "running" && p.said(msg, "tool:"+id) {
		return out // answered already: written again
	}
	if !open {
		e := event.Event{Type: event.ToolUse, TS: ts, Name: toolName(tool), ToolUseID: call}
		e.Input, e.TruncIn = toolInput(tool, st.Get("input"))
		out = append(out, e)
	}
	if status == "running" {
		if p.state.Tools == nil {
			p.state.Tools = map[string]string{}
		}
		p.state.Tools[id] = tool
		return out
	}
	delete(p.state.Tools, id)
	e := event.Event{Type: event.ToolResult, TS: ts, Name: toolName(tool), ToolUseID: call}
	if status == "error" {
		e.IsError = true
		e.Output, e.TruncOut = cut(st.GetStringBytes("error"))
	} else {
		e.Output, e.TruncOut = cut(st.GetStringBytes("output"))
	}
	return append(out, e)
}

// step adds a finished step's tokens and OpenCode's cost to the turn.
// OpenCode counts input without the cache and output without reasoning;
// the bridge's output includes reasoning.
func (p *Parser) step(part *fastjson.Value, id string, ts time.Time) {
	t := p.touch(ts)
	if id == t.Step {
		return
	}
	t.Step = id
	t.Steps++
	tok := part.Get("tokens")
	n := func(keys ...string) int64 { return event.Tokens(tok.GetInt64(keys...)) }
	if tok != nil {
		reasoning := n("reasoning")
		t.Usage = t.Usage.Add(event.Usage{
			InputTokens:           n("input"),
			OutputTokens:          n("output") + reasoning,
			ReasoningOutputTokens: reasoning,
			CacheReadTokens:       n("cache", "read"),
			CacheCreationTokens:   n("cache", "write"),
		})
	}
	if c := part.GetFloat64("cost"); c > 0 && c < 1e6 {
		t.Cost += c
	}
}
