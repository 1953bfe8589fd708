package event

import (
	"encoding/json"
	"fmt"
	"time"
)

// wire is the JSON shape of an Event. Every field is optional; MarshalJSON
// fills in the ones that belong to the event's type. Booleans that a client
// must see even when false are pointers.
type wire struct {
	Type      string `json:"type"`
	ID        int64  `json:"id"`
	TS        string `json:"ts,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	Agent     string `json:"agent,omitempty"`
	Sidechain bool   `json:"sidechain,omitempty"`
	System    bool   `json:"system,omitempty"`

	Content   *string `json:"content,omitempty"`
	Truncated *bool   `json:"truncated,omitempty"`
	MessageID string  `json:"message_id,omitempty"`

	Name      string  `json:"name,omitempty"`
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Input     *string `json:"input,omitempty"`
	TruncIn   *bool   `json:"truncated_input,omitempty"`
	Output    *string `json:"output,omitempty"`
	TruncOut  *bool   `json:"truncated_output,omitempty"`
	IsError   *bool   `json:"is_error,omitempty"`

	InputTokens         *int64   `json:"input_tokens,omitempty"`
	OutputTokens        *int64   `json:"output_tokens,omitempty"`
	CacheCreationTokens *int64   `json:"cache_creation_input_tokens,omitempty"`
	CacheReadTokens     *int64   `json:"cache_read_input_tokens,omitempty"`
	Cache1hTokens       *int64   `json:"cache_creation_1h_input_tokens,omitempty"`
	ReasoningTokens     *int64   `json:"reasoning_output_tokens,omitempty"`
	CostUSD             costJSON `json:"cost_usd,omitzero"`
	CostKnown           *bool    `json:"cost_known,omitempty"`
	SubagentTokens      *Usage   `json:"subagent_tokens,omitempty"`
	SubagentCostUSD     *float64 `json:"subagent_cost_usd,omitempty"`
	DurationMS          *int64   `json:"duration_ms,omitempty"`
	Model               string   `json:"model,omitempty"`
	Interrupted         bool     `json:"interrupted,omitempty"`

	State  string `json:"state,omitempty"`
	Reason string `json:"reason,omitempty"`

	Path      string `json:"path,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	Paired    *bool  `json:"paired,omitempty"`

	Action   string `json:"action,omitempty"`
	Command  string `json:"command,omitempty"`
	Args     string `json:"args,omitempty"`
	URL      string `json:"url,omitempty"`
	OK       *bool  `json:"ok,omitempty"`
	Error    string `json:"error,omitempty"`
	Result   string `json:"result,omitempty"`
	BrowseID *int64 `json:"browse_id,omitempty"`

	GapFrom       *int64 `json:"gapFrom,omitempty"`
	AvailableFrom *int64 `json:"availableFrom,omitempty"`
}

// MarshalJSON writes the event in its wire shape.
func (e Event) MarshalJSON() ([]byte, error) {
	if b, ok := e.appendWire(make([]byte, 0, 128+len(e.Content)+len(e.Input)+len(e.Output))); ok {
		return b, nil
	}
	return e.marshalWire()
}

// AppendJSON appends the event's wire form to b, the bytes MarshalJSON
// returns: a publisher encodes into a buffer it reuses.
func (e *Event) AppendJSON(b []byte) ([]byte, error) {
	if out, ok := e.appendWire(b); ok {
		return out, nil
	}
	raw, err := e.marshalWire()
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}

// marshalWire encodes the event through wire, by reflection.
func (e Event) marshalWire() ([]byte, error) {
	w := wire{Type: e.Type, ID: e.ID, SessionID: e.SessionID, Agent: e.Agent, Sidechain: e.Sidechain}
	if !e.TS.IsZero() {
		w.TS = e.TS.UTC().Format(time.RFC3339Nano)
	}
	switch e.Type {
	case Assistant, Thinking, User:
		w.Content, w.Truncated, w.MessageID = &e.Content, &e.Truncated, e.MessageID
		w.System = e.System
	case ToolUse:
		w.Name, w.ToolUseID = e.Name, e.ToolUseID
		w.Input, w.TruncIn = &e.Input, &e.TruncIn
	case ToolResult:
		w.Name, w.ToolUseID = e.Name, e.ToolUseID
		w.Output, w.TruncOut, w.IsError = &e.Output, &e.TruncOut, &e.IsError
	case TurnComplete:
		u := e.Usage
		w.InputTokens, w.OutputTokens = &u.InputTokens, &u.OutputTokens
		w.CacheCreationTokens, w.CacheReadTokens = &u.CacheCreationTokens, &u.CacheReadTokens
		if u.Cache1hTokens > 0 {
			w.Cache1hTokens = &u.Cache1hTokens
		}
		if u.ReasoningOutputTokens > 0 {
			w.ReasoningTokens = &u.ReasoningOutputTokens
		}
		w.CostUSD = costJSON{set: true, known: e.CostKnown, v: e.CostUSD}
		w.CostKnown = &e.CostKnown
		w.DurationMS, w.Model, w.Interrupted = &e.DurationMS, e.Model, e.Interrupted
		if e.SubagentUsage != (Usage{}) || e.SubagentCostUSD != 0 {
			su := e.SubagentUsage
			w.SubagentTokens, w.SubagentCostUSD = &su, &e.SubagentCostUSD
		}
	case Status:
		w.State, w.Reason = e.State, e.Reason
	case Session:
		w.Path, w.Workspace, w.Reason = e.Path, e.Workspace, e.Reason
		if e.Reason == FollowReason {
			w.Paired = &e.Paired
		}
	case Pairing:
		w.Workspace, w.Paired = e.Workspace, &e.Paired
	case Gap:
		w.GapFrom, w.AvailableFrom = &e.GapFrom, &e.AvailableFrom
	case Browse:
		w.Action, w.Command, w.Args, w.URL = e.Action, e.Command, e.Args, e.URL
		w.Error, w.Result = e.Error, e.Result
		switch e.Action {
		case BrowseEnd:
			w.OK, w.DurationMS = &e.OK, &e.DurationMS
		case BrowseError:
			w.OK = &e.OK
		}
		if e.Action == BrowseGap {
			w.GapFrom, w.AvailableFrom = &e.GapFrom, &e.AvailableFrom
		} else {
			w.BrowseID = &e.BrowseID
		}
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads an event written by MarshalJSON (the CLI's tail and
// the bridge's own journal use it).
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("decode event: %w", err)
	}
	*e = Event{
		ID: w.ID, Type: w.Type, SessionID: w.SessionID, Agent: w.Agent, Sidechain: w.Sidechain, System: w.System,
		Name: w.Name, ToolUseID: w.ToolUseID, Model: w.Model, MessageID: w.MessageID,
		State: w.State, Reason: w.Reason, Path: w.Path, Workspace: w.Workspace,
		Action: w.Action, Command: w.Command, Args: w.Args, URL: w.URL, Error: w.Error, Result: w.Result,
	}
	if w.TS != "" {
		ts, err := time.Parse(time.RFC3339Nano, w.TS)
		if err != nil {
			return fmt.Errorf("decode event %d: bad ts: %w", w.ID, err)
		}
		e.TS = ts
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	flag := func(p *bool) bool { return p != nil && *p }
	num := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	e.Content, e.Truncated = str(w.Content), flag(w.Truncated)
	e.Input, e.TruncIn = str(w.Input), flag(w.TruncIn)
	e.Output, e.TruncOut, e.IsError = str(w.Output), flag(w.TruncOut), flag(w.IsError)
	e.Usage = Usage{
		InputTokens: num(w.InputTokens), OutputTokens: num(w.OutputTokens),
		CacheCreationTokens: num(w.CacheCreationTokens), CacheReadTokens: num(w.CacheReadTokens),
		Cache1hTokens: num(w.Cache1hTokens), ReasoningOutputTokens: num(w.ReasoningTokens),
	}
	e.CostUSD = w.CostUSD.v
	// Journals written before cost_known existed carry a number: known.
	e.CostKnown = w.CostUSD.known && (w.CostKnown == nil || *w.CostKnown)
	if w.SubagentTokens != nil {
		e.SubagentUsage = *w.SubagentTokens
	}
	if w.SubagentCostUSD != nil {
		e.SubagentCostUSD = *w.SubagentCostUSD
	}
	e.DurationMS = num(w.DurationMS)
	e.Interrupted = w.Interrupted
	e.GapFrom, e.AvailableFrom = num(w.GapFrom), num(w.AvailableFrom)
	e.Paired = flag(w.Paired)
	e.OK, e.BrowseID = flag(w.OK), num(w.BrowseID)
	return nil
}

// costJSON is cost_usd on the wire: a number when the cost is known, null
// when it is not (an unpriced model), absent on other event types.
type costJSON struct {
	set, known bool
	v          float64
}

func (c costJSON) IsZero() bool { return !c.set }

func (c costJSON) MarshalJSON() ([]byte, error) {
	if !c.known {
		return []byte("null"), nil
	}
	return json.Marshal(c.v)
}

func (c *costJSON) UnmarshalJSON(b []byte) error {
	c.set = true
	if string(b) == "null" {
		return nil
	}
	c.known = true
	return json.Unmarshal(b, &c.v)
}
