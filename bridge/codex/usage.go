package codex

import (
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/event"
)

// usageOf converts one of Codex's token usages (OpenAI's convention: input
// includes cached input, output includes reasoning) to the bridge's
// (Anthropic's: input excludes cache reads). A count that cannot be one
// (negative, or beyond any response) counts as none (event.Tokens).
func usageOf(u *fastjson.Value) event.Usage {
	n := func(key string) int64 { return event.Tokens(u.GetInt64(key)) }
	in := n("input_tokens")
	cached := n("cached_input_tokens")
	write := n("cache_write_input_tokens")
	fresh := in - cached - write
	if fresh < 0 { // not the convention we know: keep what is certain
		fresh, write = max(in-cached, 0), 0
	}
	return event.Usage{
		InputTokens:           fresh,
		CacheReadTokens:       cached,
		CacheCreationTokens:   write,
		OutputTokens:          n("output_tokens"),
		ReasoningOutputTokens: n("reasoning_output_tokens"),
	}
}

// usageRecord adds one model response's usage (0.169 writes one
// token_usage_record per response, before the token_count).
func (p *Parser) usageRecord(pl *fastjson.Value, ts time.Time) {
	u := pl.Get("usage")
	if u == nil {
		return
	}
	p.state.Records = true
	t := p.touch(ts)
	if id := string(pl.GetStringBytes("response_id")); id != "" {
		if id == t.Response {
			return // the same response recorded twice
		}
		t.Response = id
	}
	p.addResponse(t, usageOf(u))
}

// tokenCount adds the usage of a model response from a token_count event
// when no token_usage_record carries it (0.47). Those releases write a
// token_count before each model call repeating the previous totals, so only
// a change of the running total counts; a resumed session restarts its
// totals from zero, which is a change too.
func (p *Parser) tokenCount(pl *fastjson.Value, ts time.Time) {
	if p.state.Records {
		return
	}
	info := pl.Get("info")
	if info == nil || info.Type() != fastjson.TypeObject {
		return // "info": null before the first response
	}
	total, last := info.Get("total_token_usage"), info.Get("last_token_usage")
	if total == nil || last == nil {
		return
	}
	key := [5]int64{total.GetInt64("input_tokens"), total.GetInt64("cached_input_tokens"),
		total.GetInt64("output_tokens"), total.GetInt64("reasoning_output_tokens"), total.GetInt64("total_tokens")}
	if key == p.state.Total {
		return
	}
	p.state.Total = key
	t := p.touch(ts)
	p.addResponse(t, usageOf(last))
}
