package conductor

import (
	"bytes"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
)

// frame reads one JSON frame: a Claude-style envelope (what Conductor
// renders for every agent), or one carrying the agent's own frame as
// content.rawPayload.
func (p *Parser) frame(f *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	if raw := rawPayload(f); raw != nil && string(f.GetStringBytes("type")) != "result" {
		return p.raw(raw, ts, out)
	}
	return p.envelope(f, ts, out)
}

// envelope reads a Claude-style frame: Claude Code's stream-json, which
// Conductor's rows copy, and the shape it gives other agents' frames.
func (p *Parser) envelope(f *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	typ := string(f.GetStringBytes("type"))
	if sid := f.GetStringBytes("session_id"); len(sid) > 0 {
		p.State.SessionID = string(sid)
	}
	switch typ {
	case "system":
		if v := f.GetStringBytes("claude_code_version"); len(v) > 0 {
			p.State.Version = string(v)
		}
	case "assistant":
		return p.assistant(f, ts, out)
	case "user":
		return p.user(f, ts, out)
	case "result":
		return p.result(f, ts, out)
	case "error":
		return p.failed(f, ts, out)
	}
	return out
}

// rawPayload is the agent's own frame a frame carries, parsed when it is
// JSON text.
func rawPayload(f *fastjson.Value) *fastjson.Value {
	raw := f.Get("content", "rawPayload")
	if raw == nil {
		raw = f.Get("rawPayload")
	}
	if raw != nil && raw.Type() == fastjson.TypeString {
		v, err := fastjson.ParseBytes(raw.GetStringBytes())
		if err != nil {
			return nil
		}
		return v
	}
	if raw == nil || raw.Type() != fastjson.TypeObject {
		return nil
	}
	return raw
}

// sidechain: a subagent's frame, which Conductor writes into its parent's
// chat with the Task call's id.
func sidechain(f *fastjson.Value) bool {
	id := f.Get("parent_tool_use_id")
	return id != nil && id.Type() == fastjson.TypeString && len(id.GetStringBytes()) > 0
}

func (p *Parser) assistant(f *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	msg := f.Get("message")
	if msg == nil {
		return out
	}
	base := event.Event{TS: ts, SessionID: p.State.SessionID, Sidechain: sidechain(f)}
	if !base.Sidechain {
		p.touch(ts)
		if u := msg.Get("usage"); u != nil {
			p.usage(string(msg.GetStringBytes("id")), string(msg.GetStringBytes("model")), usageOf(u), ts)
		}
	}
	content := msg.Get("content")
	if content != nil && content.Type() == fastjson.TypeString {
		return p.text(base, event.Assistant, content.GetStringBytes(), out)
	}
	for _, b := range msg.GetArray("content") {
		switch string(b.GetStringBytes("type")) {
		case "text":
			out = p.text(base, event.Assistant, b.GetStringBytes("text"), out)
		case "thinking":
			out = p.text(base, event.Thinking, b.GetStringBytes("thinking"), out)
		case "tool_use", "server_tool_use":
			name := string(b.GetStringBytes("name"))
			in, trunc := agent.ToolInput(b.Get("input"))
			out = p.toolUse(base, string(b.GetStringBytes("id")), name, in, trunc, out)
		}
	}
	return out
}

func (p *Parser) user(f *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	if f.GetBool("isMeta") || f.GetBool("isSynthetic") {
		return out
	}
	content := f.Get("message", "content")
	if content == nil {
		return out
	}
	base := event.Event{TS: ts, SessionID: p.State.SessionID, Sidechain: sidechain(f)}
	if content.Type() == fastjson.TypeString {
		return p.echo(base, content.GetStringBytes(), out)
	}
	var text []byte
	for _, b := range content.GetArray() {
		switch string(b.GetStringBytes("type")) {
		case "tool_result":
			o, trunc := agent.ResultText(b.Get("content"))
			out = p.toolResult(base, string(b.GetStringBytes("tool_use_id")), o, trunc, b.GetBool("is_error"), out)
		case "text":
			if len(text) > 0 {
				text = append(text, '\n')
			}
			text = append(text, b.GetStringBytes("text")...)
		}
	}
	return p.echo(base, text, out)
}

// echo is a user frame's text: the prompt the agent received. Conductor
// keeps the typed prompt as a plain row too, and an agent may echo it:
// a prompt while a turn is open is that echo, not a second prompt.
func (p *Parser) echo(base event.Event, text []byte, out []event.Event) []event.Event {
	if len(text) == 0 || base.Sidechain {
		return out
	}
	if bytes.HasPrefix(text, []byte("[Request interrupted by user")) {
		return p.endTurn(out, base.TS, ending{stopped: true})
	}
	if p.State.Turn != nil {
		return out
	}
	return p.prompt(base, text, out)
}

// result ends the turn with what the result frame says of it: its cost,
// duration, usage and model.
func (p *Parser) result(f *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	end := ending{durationMS: f.GetInt64("duration_ms")}
	if u := f.Get("usage"); u != nil {
		usage := usageOf(u)
		end.usage = &usage
	}
	if mu := f.GetObject("modelUsage"); mu != nil && mu.Len() == 1 {
		mu.Visit(func(k []byte, _ *fastjson.Value) { end.model = string(k) })
	}
	end.cost, end.costKnown = p.resultCost(f)
	return p.endTurn(out, ts, end)
}

// resultCost is the turn's own cost from a result frame. Claude Code
// restates the cost of its whole process in total_cost_usd, next to this
// turn's usage and the process's usage by model (modelUsage): when the
// process's tokens are the turn's, this is its first turn and the total
// is the turn's; otherwise the turn cost the total less the last one
// seen. A result with no modelUsage (another agent's, normalised by
// Conductor) is taken as the turn's own. With no earlier result of the
// process read, the cost is not known.
func (p *Parser) resultCost(f *fastjson.Value) (float64, bool) {
	total := f.Get("total_cost_usd")
	if total == nil || total.Type() != fastjson.TypeNumber {
		return 0, false
	}
	spent := total.GetFloat64()
	if spent < 0 {
		return 0, false
	}
	last, seen := p.State.Spent, p.State.Seen
	p.State.Spent, p.State.Seen = spent, true
	mu := f.GetObject("modelUsage")
	if mu == nil {
		return spent, true
	}
	var process int64
	mu.Visit(func(_ []byte, m *fastjson.Value) {
		process += m.GetInt64("inputTokens") + m.GetInt64("outputTokens") + m.GetInt64("cacheReadInputTokens") + m.GetInt64("cacheCreationInputTokens")
	})
	turn := usageOf(f.Get("usage"))
	if process <= turn.InputTokens+turn.OutputTokens+turn.CacheReadTokens+turn.CacheCreationTokens {
		return spent, true
	}
	if seen && spent >= last {
		return spent - last, true
	}
	return 0, false
}

// failed ends the turn on an error frame: "aborted by user" when the
// person stopped it, any other error when the agent failed.
func (p *Parser) failed(f *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	msg := f.GetStringBytes("content")
	if len(msg) == 0 {
		msg = f.GetStringBytes("message")
	}
	return p.endTurn(out, ts, ending{stopped: bytes.Contains(bytes.ToLower(msg), []byte("aborted by user"))})
}

// usageOf reads an Anthropic-style usage object.
func usageOf(u *fastjson.Value) event.Usage {
	if u == nil {
		return event.Usage{}
	}
	return event.Usage{
		InputTokens:         event.Tokens(u.GetInt64("input_tokens")),
		OutputTokens:        event.Tokens(u.GetInt64("output_tokens")),
		CacheCreationTokens: event.Tokens(u.GetInt64("cache_creation_input_tokens")),
		CacheReadTokens:     event.Tokens(u.GetInt64("cache_read_input_tokens")),
		Cache1hTokens:       event.Tokens(u.GetInt64("cache_creation", "ephemeral_1h_input_tokens")),
	}
}
