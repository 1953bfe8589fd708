package transcript

import (
	"bytes"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Response is what one transcript line says a model response used. Every
// line of a response (one per content block, and again when a release
// writes it twice) repeats its usage, so Key identifies the response:
// message.id, with requestId when the line has one (older releases and
// the VS Code extension write none).
type Response struct {
	Key  string
	TS   time.Time
	Side bool // a subagent's: isSidechain, a progress record, a subagent file
	Req  price.Request
	// Cwd and SessionID say where the line was written (usage reports use them).
	Cwd, SessionID string
}

// usageMarker is in every line that can carry usage; lines without it are
// skipped before they are parsed.
var usageMarker = []byte(`"usage"`)

// ParseResponse reads the usage of one transcript line: an assistant line,
// or a progress record carrying a subagent's assistant message (2.1). ok
// is false for every other line and for lines that are not JSON.
func ParseResponse(line []byte) (r Response, ok bool) {
	if !bytes.Contains(line, usageMarker) {
		return r, false
	}
	jp := parsers.Get()
	defer parsers.Put(jp)
	v, err := jp.ParseBytes(line)
	if err != nil {
		return r, false
	}
	r, ok = responseOf(v, nil)
	if ok {
		r.TS = agent.ParseTime(v.GetStringBytes("timestamp"))
		r.Cwd = string(v.GetStringBytes("cwd"))
		r.SessionID = string(v.GetStringBytes("sessionId"))
	}
	return r, ok
}

// responseOf reads the usage of a parsed line (see ParseResponse). A
// parser's lines name one model or few: model, when not nil, is the
// last named, handed again for one the same (no new string for each
// line) and made the line's.
func responseOf(v *fastjson.Value, model *string) (r Response, ok bool) {
	rec := v
	switch string(v.GetStringBytes("type")) {
	case "assistant":
		r.Side = v.GetBool("isSidechain")
	case "progress":
		// 2.1 relays a running subagent's messages inside progress
		// records of the main file: {"data":{"message":{"type":"assistant",…}}}.
		rec = v.Get("data", "message")
		if rec == nil || string(rec.GetStringBytes("type")) != "assistant" {
			return r, false
		}
		r.Side = true
	default:
		return r, false
	}
	msg := rec.Get("message")
	if msg == nil {
		return r, false
	}
	u := msg.Get("usage")
	if u == nil || u.Type() != fastjson.TypeObject {
		return r, false
	}
	id := msg.GetStringBytes("id")
	if req := rec.GetStringBytes("requestId"); len(req) > 0 {
		r.Key = string(id) + "|" + string(req) // one string made, not the id's and then the whole
	} else {
		r.Key = string(id)
	}
	r.Req.Model = intern(model, msg.GetStringBytes("model"))
	r.Req.Usage = usageOf(u)
	r.Req.WebSearches = event.Tokens(u.GetInt64("server_tool_use", "web_search_requests"))
	r.Req.WebFetches = event.Tokens(u.GetInt64("server_tool_use", "web_fetch_requests"))
	r.Req.Fast = string(u.GetStringBytes("speed")) == "fast"
	return r, true
}

// usageOf reads a message's usage object. Cache writes are split by
// lifetime in usage.cache_creation where a release writes it; a 1-hour
// write costs more than a 5-minute one. A count that cannot be one
// (negative, or beyond any response) counts as none (event.Tokens).
func usageOf(u *fastjson.Value) event.Usage {
	n := func(v *fastjson.Value, key string) int64 { return event.Tokens(v.GetInt64(key)) }
	out := event.Usage{
		InputTokens:         n(u, "input_tokens"),
		OutputTokens:        n(u, "output_tokens"),
		CacheCreationTokens: n(u, "cache_creation_input_tokens"),
		CacheReadTokens:     n(u, "cache_read_input_tokens"),
	}
	if cc := u.Get("cache_creation"); cc != nil {
		w5, w1 := n(cc, "ephemeral_5m_input_tokens"), n(cc, "ephemeral_1h_input_tokens")
		out.Cache1hTokens = w1
		if out.CacheCreationTokens < w5+w1 {
			out.CacheCreationTokens = w5 + w1
		}
	}
	return out
}

// Merge returns what two lines of one response say together: the larger
// count of each kind. Early lines of older releases are written before
// the final counts are known (output 1); the final line has them.
func Merge(a, b price.Request) price.Request {
	out := a
	out.Usage = event.Usage{
		InputTokens:         max(a.Usage.InputTokens, b.Usage.InputTokens),
		OutputTokens:        max(a.Usage.OutputTokens, b.Usage.OutputTokens),
		CacheCreationTokens: max(a.Usage.CacheCreationTokens, b.Usage.CacheCreationTokens),
		CacheReadTokens:     max(a.Usage.CacheReadTokens, b.Usage.CacheReadTokens),
		Cache1hTokens:       max(a.Usage.Cache1hTokens, b.Usage.Cache1hTokens),
	}
	out.WebSearches = max(a.WebSearches, b.WebSearches)
	out.WebFetches = max(a.WebFetches, b.WebFetches)
	out.Fast = a.Fast || b.Fast
	if out.Model == "" {
		out.Model = b.Model
	}
	return out
}

// sub returns u minus v, kind by kind.
func sub(u, v event.Usage) event.Usage {
	return event.Usage{
		InputTokens:           u.InputTokens - v.InputTokens,
		OutputTokens:          u.OutputTokens - v.OutputTokens,
		CacheCreationTokens:   u.CacheCreationTokens - v.CacheCreationTokens,
		CacheReadTokens:       u.CacheReadTokens - v.CacheReadTokens,
		Cache1hTokens:         u.Cache1hTokens - v.Cache1hTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens - v.ReasoningOutputTokens,
	}
}

// intern is b as a string: *last when it is the same, else a new one,
// which *last then holds (last nil: always a new one).
func intern(last *string, b []byte) string {
	if last == nil {
		return string(b)
	}
	if *last != string(b) {
		*last = string(b)
	}
	return *last
}
