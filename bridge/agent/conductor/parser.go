package conductor

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
)

// ErrNotRow marks a line that is not a row's line (Row.Line). The caller
// counts and skips it; the parser's state is untouched.
var ErrNotRow = errors.New("conductor record line is not a row")

var (
	_ agent.Parser   = (*Parser)(nil)
	_ agent.Waiter   = (*Parser)(nil)
	_ agent.Prompted = (*Parser)(nil)
)

// Parser turns one tab's rows into events. It is fed Row.Line's lines in
// row order by one goroutine; it is not safe for concurrent use.
type Parser struct {
	agent.Explicit // every turn ends with a frame (a result, an error)
	State          State
}

// State is everything a Parser remembers between rows: small, and JSON
// for the journal.
type State struct {
	// Row and Key are the rowid and id of the last row read: a restart
	// follows the tab from there (Cursor).
	Row int64  `json:"row,omitempty"`
	Key string `json:"key,omitempty"`
	// SessionID is the agent's own session id, as its frames name it.
	SessionID string `json:"session_id,omitempty"`
	Version   string `json:"version,omitempty"`
	// Tools are the unanswered tool calls: id → name.
	Tools map[string]string `json:"tools,omitempty"`
	Turn  *Turn             `json:"turn,omitempty"`
	// Ended: the last turn ended with no prompt or frame of a new one
	// since (a result after "aborted by user", a run's end after its
	// usage, is the same turn's and ends nothing more).
	Ended bool `json:"ended,omitempty"`
	// Spent is the last result frame's total_cost_usd, Seen that there was
	// one. Claude Code restates the cost of its whole process in each
	// result; a turn's own cost is the difference.
	Spent float64 `json:"spent,omitempty"`
	Seen  bool    `json:"seen,omitempty"`
	// LastText starts the last assistant text, for notifications.
	LastText string `json:"last_text,omitempty"`
	// Prompts counts the person's prompts read; Counted that the count
	// began with the record's first row (agent.Prompted).
	Prompts int  `json:"prompts,omitempty"`
	Counted bool `json:"counted,omitempty"`
}

// Turn is the open turn.
type Turn struct {
	Start time.Time `json:"start,omitzero"`
	Last  time.Time `json:"last,omitzero"`
	Model string    `json:"model,omitempty"`
	// Usage sums the responses' usage, each message id once (Msgs), for
	// a turn that ends with no result frame to say it.
	Usage event.Usage `json:"usage,omitzero"`
	Msgs  []string    `json:"msgs,omitempty"`
	// Spent: a response of the turn reported usage, so an end with no
	// cost cannot honestly say $0.
	Spent bool `json:"spent,omitempty"`
}

// Cursor is where a tab's record was read up to: the last row's rowid and
// id (the id finds the row again should Conductor's rowids move).
type Cursor struct {
	Row int64
	Key string
}

// NewParser resumes a parser from the state Save returned (nil: a fresh
// one).
func NewParser(saved json.RawMessage) (*Parser, error) {
	p := &Parser{}
	if len(saved) == 0 || string(saved) == "null" {
		p.State.Counted = true // read from the first row
		return p, nil
	}
	if err := agent.LoadState("conductor record", saved, &p.State); err != nil {
		return &Parser{}, err
	}
	return p, nil
}

// Prompts is how many of the person's prompts the rows read held
// (agent.Prompted).
func (p *Parser) Prompts() (int, bool) { return p.State.Prompts, p.State.Counted }

// Cursor is the last row read, to follow the tab from.
func (p *Parser) Cursor() Cursor { return Cursor{Row: p.State.Row, Key: p.State.Key} }

// Save returns the parser's state for the journal.
func (p *Parser) Save() (json.RawMessage, error) {
	return agent.SaveState("conductor record", &p.State)
}

// Version is the agent's version, when its frames say it.
func (p *Parser) Version() string { return p.State.Version }

// InTurn reports whether a turn is open.
func (p *Parser) InTurn() bool { return p.State.Turn != nil }

// EndTurn ends the open turn (a hook's word); its cost is not known.
func (p *Parser) EndTurn(out []event.Event) []event.Event {
	if p.State.Turn == nil {
		return out
	}
	return p.endTurn(out, p.State.Turn.Last, ending{})
}

// Interrupt ends the open turn of an agent that is gone (agent.Parser):
// marked interrupted when it spent anything, silently when it did not.
func (p *Parser) Interrupt(out []event.Event) []event.Event {
	t := p.State.Turn
	if t == nil {
		return out
	}
	spent := t.Usage != (event.Usage{}) || t.Spent
	return agent.Interrupt(out, spent, func() { p.State.Turn = nil }, p.EndTurn)
}

// askTools are the tools whose unanswered call means the agent waits for
// the person.
var askTools = map[string]bool{"mcp__conductor__AskUserQuestion": true, "AskUserQuestion": true}

// Waiting is "question" while a question tool call has no answer.
func (p *Parser) Waiting() string {
	for _, name := range p.State.Tools {
		if askTools[name] {
			return event.ReasonQuestion
		}
	}
	return ""
}

// Line reads one row's line (Row.Line) and appends its events to out. The
// row read last, handed over again, adds nothing. Rows come in the
// Follower's order; their rowids are not compared, as Conductor's may move
// (a VACUUM renumbers a table without an INTEGER PRIMARY KEY).
func (p *Parser) Line(line []byte, out []event.Event) ([]event.Event, error) {
	err := agent.ParseObject(line, ErrNotRow, func(v *fastjson.Value) (err error) {
		out, err = p.row(v, out)
		return err
	})
	return out, err
}

// row reads one row's object.
func (p *Parser) row(v *fastjson.Value, out []event.Event) ([]event.Event, error) {
	row := v.Get("row")
	if row == nil || row.Type() != fastjson.TypeNumber {
		return out, ErrNotRow
	}
	id := string(v.GetStringBytes("id"))
	if id != "" && id == p.State.Key {
		return out, nil // the row read last, handed over again
	}
	p.State.Row, p.State.Key = row.GetInt64(), id
	ts := parseTime(v.GetStringBytes("at"))
	if f := v.Get("frame"); f != nil {
		return p.frame(f, ts, out), nil
	}
	text := v.GetStringBytes("text")
	if v.GetBool("cancelled") || len(text) == 0 {
		return out, nil
	}
	base := event.Event{TS: ts, SessionID: p.State.SessionID}
	if string(v.GetStringBytes("role")) == "assistant" {
		return p.text(base, event.Assistant, text, out), nil
	}
	return p.prompt(base, text, out), nil
}

// touch notes activity of the open turn at ts, opening one when none is
// (the tab was joined mid-turn, or the agent acts unprompted).
func (p *Parser) touch(ts time.Time) *Turn {
	p.State.Ended = false
	if p.State.Turn == nil {
		p.State.Turn = &Turn{Start: ts}
	}
	if !ts.IsZero() {
		p.State.Turn.Last = ts
	}
	return p.State.Turn
}

// prompt is the person's prompt: it opens a turn unless one is open (a
// prompt sent while the agent works joins its turn).
func (p *Parser) prompt(base event.Event, text []byte, out []event.Event) []event.Event {
	p.touch(base.TS)
	p.State.Prompts++
	e := base
	e.Type = event.User
	e.Content, e.Truncated = cut(text)
	e.System = hasPrefixTrim(text, "<system_instruction>")
	return append(out, e)
}

// text appends an assistant or thinking event.
func (p *Parser) text(base event.Event, typ string, text []byte, out []event.Event) []event.Event {
	if len(text) == 0 {
		return out
	}
	if !base.Sidechain {
		p.touch(base.TS)
	}
	e := base
	e.Type = typ
	e.Content, e.Truncated = cut(text)
	if typ == event.Assistant && !base.Sidechain {
		p.State.LastText = e.Content
	}
	return append(out, e)
}

// toolUse appends a tool call and remembers it until its result.
func (p *Parser) toolUse(base event.Event, id, name, input string, truncated bool, out []event.Event) []event.Event {
	if !base.Sidechain {
		p.touch(base.TS)
	}
	if id != "" {
		if p.State.Tools == nil {
			p.State.Tools = make(map[string]string)
		}
		p.State.Tools[id] = name
	}
	e := base
	e.Type, e.ToolUseID, e.Name, e.Input, e.TruncIn = event.ToolUse, id, name, input, truncated
	return append(out, e)
}

// toolResult appends a tool's result, named after its call.
func (p *Parser) toolResult(base event.Event, id, output string, truncated, isError bool, out []event.Event) []event.Event {
	if !base.Sidechain {
		p.touch(base.TS)
	}
	name := p.State.Tools[id]
	delete(p.State.Tools, id)
	e := base
	e.Type, e.ToolUseID, e.Name, e.Output, e.TruncOut, e.IsError = event.ToolResult, id, name, output, truncated, isError
	return append(out, e)
}

// usage adds one response's usage to the open turn, once per message id.
func (p *Parser) usage(msgID, model string, u event.Usage, ts time.Time) {
	t := p.touch(ts)
	if model != "" {
		t.Model = model
	}
	if msgID != "" {
		for _, m := range t.Msgs {
			if m == msgID {
				return
			}
		}
		if len(t.Msgs) >= 64 {
			t.Msgs = t.Msgs[1:]
		}
		t.Msgs = append(t.Msgs, msgID)
	}
	t.Usage = t.Usage.Add(u)
	t.Spent = t.Spent || u != (event.Usage{})
}

// ending is what the frame that ends a turn says of it.
type ending struct {
	cost       float64
	costKnown  bool
	usage      *event.Usage // the turn's usage, when the frame has it
	durationMS int64
	model      string
	stopped    bool // the person stopped it: its calls are never answered
}

// endTurn emits the turn's turn_complete. A frame that ends a turn just
// ended (Ended) adds none.
func (p *Parser) endTurn(out []event.Event, ts time.Time, end ending) []event.Event {
	t := p.State.Turn
	if t == nil {
		if p.State.Ended {
			return out
		}
		t = &Turn{Start: ts, Last: ts}
	}
	p.State.Turn, p.State.Ended = nil, true
	if end.stopped {
		p.State.Tools = nil
	}
	e := event.Event{Type: event.TurnComplete, TS: ts, SessionID: p.State.SessionID, Model: t.Model,
		Usage: t.Usage, CostUSD: end.cost, CostKnown: end.costKnown, DurationMS: end.durationMS}
	e.Interrupted = end.stopped // "aborted by user", a cancelled run
	if end.usage != nil {
		e.Usage = *end.usage
	}
	if end.model != "" {
		e.Model = end.model
	}
	if !end.costKnown && !t.Spent && e.Usage == (event.Usage{}) {
		e.CostKnown = true // nothing was spent: $0 is the truth
	}
	if e.DurationMS == 0 && !t.Start.IsZero() && ts.After(t.Start) {
		e.DurationMS = ts.Sub(t.Start).Milliseconds()
	}
	return append(out, e)
}
