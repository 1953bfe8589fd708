package opencode

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Agent is the value of event.Event.Agent for OpenCode sessions: the name
// Conductor's sessions.agent_type gives its OpenCode tabs.
const Agent = "acp"

// ErrNotJSON marks a line that is not an event row Row.Line made: not a
// JSON object, or one without its seq, type or data object. The caller
// counts and skips it; nothing else is lost.
var ErrNotJSON = errors.New("opencode event line is not a JSON event object")

var (
	_ agent.Parser   = (*Parser)(nil)
	_ agent.Prompted = (*Parser)(nil)
)

// Parser turns a session's event rows (Row.Line) into events, in seq
// order. Rows at or below the last seq it parsed are skipped, so feeding
// a row twice (a restart reading again from its journaled cursor) emits
// nothing twice. It is not safe for concurrent use.
type Parser struct {
	// Price prices a turn OpenCode put no cost on (a model with no price
	// in OpenCode's configuration); nil knows no model.
	Price          price.Func
	state          State
	agent.Explicit // OpenCode writes every turn's end (the last assistant message's completion)
}

// State is everything a Parser keeps between rows; O(1) in the length of
// a turn (only the parts of the message being written are remembered).
type State struct {
	// Next is the seq of the next row to parse: the session's cursor.
	Next    int64  `json:"next"`
	Session string `json:"session,omitempty"`
	Dir     string `json:"dir,omitempty"`
	Version string `json:"version,omitempty"`
	Title   string `json:"title,omitempty"`
	Parent  string `json:"parent,omitempty"` // a subagent's session: its parent's id
	// User is the newest user message; its text parts are the person's
	// prompt.
	User string `json:"user,omitempty"`
	// Said lists the parts of the message being written already
	// emitted (a part is written again as it changes).
	Said    []string `json:"said,omitempty"`
	SaidMsg string   `json:"said_msg,omitempty"`
	// Tools are the tool calls announced and not answered: part id →
	// tool.
	Tools map[string]string `json:"tools,omitempty"`
	Turn  *Turn             `json:"turn,omitempty"`
	// Ended is the last assistant message that ended a turn: OpenCode
	// writes a message again after it completed.
	Ended    string `json:"ended,omitempty"`
	LastText string `json:"last_text,omitempty"`
	// Error is why the last turn failed ("" if it did not).
	Error string `json:"error,omitempty"`
	// Prompts counts the person's messages read; Counted that the count
	// began with the session's first row (agent.Prompted).
	Prompts int  `json:"prompts,omitempty"`
	Counted bool `json:"counted,omitempty"`
}

// Turn accumulates one turn, from the person's prompt to the assistant
// message that ends it.
type Turn struct {
	Start time.Time   `json:"start"`
	Last  time.Time   `json:"last"`
	Model string      `json:"model,omitempty"`
	Usage event.Usage `json:"usage"`
	Cost  float64     `json:"cost,omitempty"`
	Steps int         `json:"steps,omitempty"`
	Step  string      `json:"step,omitempty"` // the last step-finish part counted
}

// NewParser returns a parser resuming from saved (a Save result), or a
// fresh one when saved is empty.
func NewParser(saved json.RawMessage) (*Parser, error) {
	p := &Parser{}
	if len(saved) == 0 || string(saved) == "null" {
		p.state.Counted = true // read from the first row
		return p, nil
	}
	if err := agent.LoadState("opencode", saved, &p.state); err != nil {
		return nil, err
	}
	return p, nil
}

// Prompts is how many of the person's messages the rows read held
// (agent.Prompted).
func (p *Parser) Prompts() (int, bool) { return p.state.Prompts, p.state.Counted }

// Save returns the parser's state as JSON.
func (p *Parser) Save() (json.RawMessage, error) { return agent.SaveState("opencode", &p.state) }

// State returns a copy of the parser's state.
func (p *Parser) State() State { return p.state }

// Next is the seq of the next row to read: pass Next()-1 to Store.Rows.
func (p *Parser) Next() int64 { return p.state.Next }

// SessionID is the session's id (ses_…), "" before its first row.
func (p *Parser) SessionID() string { return p.state.Session }

// Dir is the session's working directory.
func (p *Parser) Dir() string { return p.state.Dir }

// Title is the session's title as OpenCode last wrote it.
func (p *Parser) Title() string { return p.state.Title }

// Version is the OpenCode release that created the session.
func (p *Parser) Version() string { return p.state.Version }

// InTurn reports whether a turn is open (OpenCode is working).
func (p *Parser) InTurn() bool { return p.state.Turn != nil }

// Failed is why the last turn ended in an error, "" if it did not.
func (p *Parser) Failed() string { return p.state.Error }

// LastText is the start of the last assistant text, for notifications.
func (p *Parser) LastText() string { return p.state.LastText }

// EndTurn ends the open turn now: the process running it is gone.
func (p *Parser) EndTurn(out []event.Event) []event.Event {
	if p.state.Turn == nil {
		return out
	}
	return p.endTurn(out, p.state.Turn.Last, time.Time{})
}

// Interrupt ends the open turn of an agent that is gone (agent.Parser):
// marked interrupted when it spent anything, silently when it did not.
func (p *Parser) Interrupt(out []event.Event) []event.Event {
	t := p.state.Turn
	if t == nil {
		return out
	}
	spent := t.Usage != (event.Usage{}) || t.Cost != 0
	return agent.Interrupt(out, spent, func() { p.state.Turn = nil }, p.EndTurn)
}

// Line parses one event row (Row.Line) and appends its events to out.
func (p *Parser) Line(line []byte, out []event.Event) ([]event.Event, error) {
	err := agent.ParseObject(line, ErrNotJSON, func(v *fastjson.Value) (err error) {
		out, err = p.event(v, out)
		return err
	})
	return out, err
}

// event reads one event row's object.
func (p *Parser) event(v *fastjson.Value, out []event.Event) ([]event.Event, error) {
	seq := v.Get("seq")
	data := v.Get("data")
	if seq == nil || seq.Type() != fastjson.TypeNumber || data == nil || data.Type() != fastjson.TypeObject {
		return out, ErrNotJSON
	}
	n, err := seq.Int64()
	if err != nil || n < 0 {
		return out, ErrNotJSON
	}
	if n < p.state.Next {
		return out, nil // seen before we restarted
	}
	p.state.Next = n + 1
	switch string(v.GetStringBytes("type")) {
	case "session.created.1", "session.updated.1":
		p.session(data.Get("info"))
	case "message.updated.1":
		out = p.message(data.Get("info"), out)
	case "message.part.updated.1":
		out = p.part(data.Get("part"), millis(data.Get("time")), out)
	}
	return out, nil
}

func (p *Parser) session(info *fastjson.Value) {
	if info == nil || info.Type() != fastjson.TypeObject {
		return
	}
	set := func(dst *string, key string) {
		if s := info.GetStringBytes(key); len(s) > 0 {
			*dst, _ = cut(s)
		}
	}
	set(&p.state.Session, "id")
	set(&p.state.Dir, "directory")
	set(&p.state.Version, "version")
	set(&p.state.Title, "title")
	set(&p.state.Parent, "parentID")
}

// millis reads a time OpenCode writes in Unix milliseconds.
func millis(v *fastjson.Value) time.Time {
	if v == nil || v.Type() != fastjson.TypeNumber {
		return time.Time{}
	}
	ms, err := v.Int64()
	if err != nil || ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}
