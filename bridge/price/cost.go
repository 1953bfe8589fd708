package price

import "conductorbridge/bridge/event"

// Request is what one model response used: the unit prices apply to,
// since a request's tier (long context) depends on that request alone.
type Request struct {
	Model string      `json:"m,omitempty"`
	Usage event.Usage `json:"u"` // Cache1hTokens is the part of CacheCreationTokens written at the 1-hour rate
	// Server tools the API ran itself (usage.server_tool_use).
	WebSearches int64 `json:"ws,omitempty"`
	WebFetches  int64 `json:"wf,omitempty"`
	Fast        bool  `json:"f,omitempty"` // usage.speed "fast"
}

// Charge is one step of a turn's cost: a response as now counted and,
// when an earlier line of it was counted already, as counted then (the
// step is the difference of their prices); Side: a subagent's.
type Charge struct {
	Now  Request  `json:"n"`
	Was  *Request `json:"w,omitempty"`
	Side bool     `json:"s,omitempty"`
}

// Func prices usage for model; known is false when the model has no
// price, and usd must then not be shown as a price. Parsers of formats
// that carry no cost of their own (Codex, OpenCode's unpriced models) are
// handed one.
type Func func(model string, u event.Usage) (usd float64, known bool)

// FuncOf is the Func of table t, the built-in one (Embedded) where t is
// nil: what an agent's NewParser hands its parser for the prices it was
// given.
func FuncOf(t *Table) Func {
	if t == nil {
		t = Embedded()
	}
	return t.ModelCost
}

// ModelCost prices a response of model that used u: a Func.
func (t *Table) ModelCost(model string, u event.Usage) (usd float64, known bool) {
	return t.Cost(Request{Model: model, Usage: u})
}

// Cost prices one request in US dollars. known is false when the table
// has no price for the model; usd is then 0 and must not be shown as a
// price.
func (t *Table) Cost(r Request) (usd float64, known bool) {
	m, ok := t.Lookup(r.Model)
	if !ok {
		return 0, false
	}
	u := r.Usage
	rates := m.Rates
	threshold := t.LongContextThreshold
	if m.LongContextThreshold > 0 {
		threshold = m.LongContextThreshold
	}
	switch {
	case r.Fast && m.Fast != nil:
		rates = *m.Fast
	case m.LongContext != nil && threshold > 0 &&
		u.InputTokens+u.CacheCreationTokens+u.CacheReadTokens > threshold:
		rates = *m.LongContext
	}
	write1h := min(max(u.Cache1hTokens, 0), u.CacheCreationTokens)
	write5m := u.CacheCreationTokens - write1h
	usd = (float64(u.InputTokens)*rates.Input +
		float64(u.OutputTokens)*rates.Output +
		float64(write5m)*rates.CacheWrite5m +
		float64(write1h)*rates.CacheWrite1h +
		float64(u.CacheReadTokens)*rates.CacheRead) / 1e6
	usd += float64(r.WebSearches)*t.ServerTools["web_search_requests"] +
		float64(r.WebFetches)*t.ServerTools["web_fetch_requests"]
	return usd, true
}
