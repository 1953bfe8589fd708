package cursor

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// ErrNotRow marks a line that is not a row's line (Row.Line): not a JSON
// object, or one without its turn and seq. The caller counts and skips
// it; the parser's state is untouched.
var ErrNotRow = errors.New("cursor store line is not a run event row")

var _ agent.Parser = (*Parser)(nil)

// Parser turns one SDK agent's run events, in (turn, seq) order, into
// events. A row at or before the last one read adds nothing, so a restart
// reading again from its mark emits nothing twice. It is not safe for
// concurrent use.
type Parser struct {
	agent.Explicit // every run ends with a status event
	// Price prices a turn by its model; nil, or a model it does not
	// know ("auto"), leaves the cost unknown: the store keeps none.
	Price price.Func
	state State
}

// State is everything a Parser keeps between rows, O(1) in a turn's
// length.
type State struct {
	// Turn and Seq are the last row read: the mark a reader reads on
	// from.
	Turn int64 `json:"turn,omitempty"`
	Seq  int64 `json:"seq,omitempty"`
	// Agent is the SDK agent's id (agent-…), the session.
	Agent string `json:"agent,omitempty"`
	// Tools are the unanswered tool calls: call id → name.
	Tools map[string]string `json:"tools,omitempty"`
	Open  *Turn             `json:"open,omitempty"`
	// Ended is the run whose end was emitted: a later event of it (the
	// stream's result, done) ends nothing more.
	Ended    string `json:"ended,omitempty"`
	LastText string `json:"last_text,omitempty"`
	// Failed is the error code of the last run, "" unless it failed.
	Failed string `json:"failed,omitempty"`
}

// Turn is the open run.
type Turn struct {
	Run   string      `json:"run"`
	Start time.Time   `json:"start,omitzero"`
	Last  time.Time   `json:"last,omitzero"`
	Model string      `json:"model,omitempty"`
	Usage event.Usage `json:"usage,omitzero"` // the usage events' sum
}

// NewParser resumes a parser from what Save returned (nil: a fresh one).
func NewParser(saved json.RawMessage) (*Parser, error) {
	p := &Parser{}
	if err := agent.LoadState("cursor store", saved, &p.state); err != nil {
		return nil, err
	}
	return p, nil
}

// Save returns the parser's state for the journal.
func (p *Parser) Save() (json.RawMessage, error) { return agent.SaveState("cursor store", &p.state) }

// Mark is the last row read: Store.Rows reads on after it.
func (p *Parser) Mark() Mark { return Mark{Turn: p.state.Turn, Seq: p.state.Seq} }

// AgentID is the SDK agent the rows are of, "" before the first.
func (p *Parser) AgentID() string { return p.state.Agent }

// Version is unknown: the store does not say which SDK wrote it.
func (p *Parser) Version() string { return "" }

// InTurn reports whether a run is open (Cursor is working).
func (p *Parser) InTurn() bool { return p.state.Open != nil }

// LastText starts the last assistant text, for notifications.
func (p *Parser) LastText() string { return p.state.LastText }

// Failed is the last run's error code when it failed, else "".
func (p *Parser) Failed() string { return p.state.Failed }

// EndTurn ends the open run now (a hook's word; its process is gone).
func (p *Parser) EndTurn(out []event.Event) []event.Event {
	t := p.state.Open
	if t == nil {
		return out
	}
	return p.end(out, t.Last, nil, false)
}

// Interrupt ends the open run of an agent that is gone (agent.Parser):
// marked interrupted when it spent anything, silently when it did not.
func (p *Parser) Interrupt(out []event.Event) []event.Event {
	t := p.state.Open
	if t == nil {
		return out
	}
	return agent.Interrupt(out, t.Usage != (event.Usage{}), func() { p.state.Open = nil }, p.EndTurn)
}

// Line parses one row's line (Row.Line) and appends its events to out.
func (p *Parser) Line(line []byte, out []event.Event) ([]event.Event, error) {
	err := agent.ParseObject(line, ErrNotRow, func(v *fastjson.Value) (err error) {
		out, err = p.row(v, out)
		return err
	})
	return out, err
}

// row reads one row's object.
func (p *Parser) row(v *fastjson.Value, out []event.Event) ([]event.Event, error) {
	turn, seq := v.Get("turn"), v.Get("seq")
	if turn == nil || seq == nil || turn.Type() != fastjson.TypeNumber || seq.Type() != fastjson.TypeNumber {
		return out, ErrNotRow
	}
	t, err1 := turn.Int64()
	s, err2 := seq.Int64()
	if err1 != nil || err2 != nil || t < 1 {
		return out, ErrNotRow
	}
	if t < p.state.Turn || (t == p.state.Turn && s <= p.state.Seq) {
		return out, nil // read before a restart
	}
	p.state.Turn, p.state.Seq = t, s
	payload := v.Get("payload")
	if payload == nil || payload.Type() != fastjson.TypeObject {
		return out, nil // kept elsewhere (payload_ref), or no event
	}
	r := runOf(v)
	if t := p.state.Open; t != nil && r.id != "" && t.Run != r.id {
		// A run that never said it ended (the SDK was killed) is over
		// once the next one starts: ended as a gone agent's turn is.
		out = p.Interrupt(out)
	}
	if a := payload.GetStringBytes("agentId"); len(a) > 0 {
		p.state.Agent = string(a)
	}
	switch string(payload.GetStringBytes("type")) {
	case "sdk_message":
		if m := payload.Get("message"); m != nil && m.Type() == fastjson.TypeObject {
			return p.message(m, r, out), nil
		}
	case "result": // the stream's end of a run: {status, errorCode}
		return p.status(string(payload.GetStringBytes("status")), r, out), nil
	}
	return out, nil
}

// message reads one SDK message.
func (p *Parser) message(m *fastjson.Value, r run, out []event.Event) []event.Event {
	switch string(m.GetStringBytes("type")) {
	case "request":
		p.touch(r)
	case "status":
		return p.status(string(m.GetStringBytes("status")), r, out)
	case "assistant":
		// Its tool_use blocks are the tool_call messages' calls again.
		for _, b := range m.GetArray("message", "content") {
			if string(b.GetStringBytes("type")) == "text" {
				out = p.text(r, event.Assistant, b.GetStringBytes("text"), out)
			}
		}
	case "user": // the SDK's echo of a message, when it writes one
		for _, b := range m.GetArray("message", "content") {
			if t := b.GetStringBytes("text"); len(t) > 0 {
				p.touch(r)
				e := event.Event{Type: event.User, TS: r.at}
				e.Content, e.Truncated = event.CutBytes(t, event.MaxText)
				out = append(out, e)
			}
		}
	case "thinking":
		return p.text(r, event.Thinking, m.GetStringBytes("text"), out)
	case "tool_call":
		return p.tool(ReadCall(m), r, out)
	case "usage":
		if u := m.Get("usage"); u != nil {
			t := p.touch(r)
			t.Usage = t.Usage.Add(Tokens(u))
		}
	}
	return out
}

// run is what a row says of its run.
type run struct {
	id, status, model, errorCode string
	at, started, finished        time.Time
	usage                        *event.Usage // usage_json, once written
}

func runOf(v *fastjson.Value) run {
	r := run{
		id: string(v.GetStringBytes("run")), status: string(v.GetStringBytes("status")),
		model: string(v.GetStringBytes("model")), errorCode: string(v.GetStringBytes("error")),
		at: agent.ParseTime(v.GetStringBytes("at")), started: agent.ParseTime(v.GetStringBytes("started")),
		finished: agent.ParseTime(v.GetStringBytes("finished")),
	}
	if u := v.Get("usage"); u != nil && u.Type() == fastjson.TypeObject {
		usage := Tokens(u)
		r.usage = &usage
	}
	return r
}

// touch notes activity of r's run, opening its turn when none is (a new
// run, or the record read from mid-run).
func (p *Parser) touch(r run) *Turn {
	if p.state.Open == nil && r.id != "" && r.id == p.state.Ended {
		return &Turn{} // an ended run's late event opens nothing
	}
	if p.state.Open == nil || p.state.Open.Run != r.id {
		p.state.Open = &Turn{Run: r.id, Start: r.at}
		if !r.started.IsZero() {
			p.state.Open.Start = r.started
		}
		p.state.Failed = ""
	}
	t := p.state.Open
	if !r.at.IsZero() {
		t.Last = r.at
	}
	if r.model != "" {
		t.Model = r.model
	}
	return t
}

// text appends an assistant or thinking event.
func (p *Parser) text(r run, typ string, text []byte, out []event.Event) []event.Event {
	if len(text) == 0 {
		return out
	}
	p.touch(r)
	e := event.Event{Type: typ, TS: r.at}
	e.Content, e.Truncated = event.CutBytes(text, event.MaxText)
	if typ == event.Assistant {
		p.state.LastText = e.Content
	}
	return append(out, e)
}

// tool appends a call the first time it is written and its result when
// it is done.
func (p *Parser) tool(c Call, r run, out []event.Event) []event.Event {
	p.touch(r)
	if _, asked := p.state.Tools[c.ID]; !asked || c.ID == "" {
		if c.ID != "" {
			if p.state.Tools == nil {
				p.state.Tools = make(map[string]string)
			}
			p.state.Tools[c.ID] = c.Name
		}
		out = append(out, event.Event{Type: event.ToolUse, TS: r.at, ToolUseID: c.ID, Name: c.Name, Input: c.Input, TruncIn: c.TruncIn})
	}
	if !c.Done {
		return out
	}
	name, ok := p.state.Tools[c.ID]
	if !ok {
		name = c.Name
	}
	delete(p.state.Tools, c.ID)
	return append(out, event.Event{Type: event.ToolResult, TS: r.at, ToolUseID: c.ID, Name: name,
		Output: c.Output, TruncOut: c.TruncOut, IsError: c.IsError})
}

// status reads a run's status: its end ends the turn.
func (p *Parser) status(status string, r run, out []event.Event) []event.Event {
	ended, stopped, working := RunEnd(status)
	switch {
	case working:
		p.touch(r)
	case ended && r.id != p.state.Ended:
		p.touch(r)
		if r.errorCode != "" {
			p.state.Failed = r.errorCode
		} else if status == "ERROR" || status == "error" {
			p.state.Failed = "error"
		}
		return p.end(out, r.at, &r, stopped)
	}
	return out
}

// end emits the open run's turn_complete: its tokens are the run row's
// usage_json once the run row is over, else the usage events' sum; its
// duration the run's started_at to finished_at, else the turn's first
// event to ts; its cost the price table's for the model, when it knows
// it (the store keeps no cost).
func (p *Parser) end(out []event.Event, ts time.Time, r *run, stopped bool) []event.Event {
	t := p.state.Open
	p.state.Open, p.state.Ended, p.state.Tools = nil, t.Run, nil
	e := event.Event{Type: event.TurnComplete, TS: ts, Model: t.Model, Usage: t.Usage, Interrupted: stopped}
	start, stop := t.Start, ts
	if r != nil {
		if ended, _, _ := RunEnd(r.status); ended && r.usage != nil {
			e.Usage = *r.usage
		}
		if !r.started.IsZero() && !r.finished.IsZero() {
			start, stop = r.started, r.finished
		}
	}
	if !start.IsZero() && stop.After(start) {
		e.DurationMS = stop.Sub(start).Milliseconds()
	}
	switch {
	case e.Usage == (event.Usage{}):
		e.CostKnown = true // nothing was spent: $0 is the truth
	case p.Price != nil:
		e.CostUSD, e.CostKnown = p.Price(e.Model, e.Usage)
	}
	return append(out, e)
}
