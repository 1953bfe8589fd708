// Package codex reads the Codex CLI's session records ("rollouts") into the
// bridge's events: Parser implements agent.Parser for the rollout JSONL,
// Sessions and Find locate rollout files under $CODEX_HOME, and Deliver
// gets a message into a Codex thread.
//
// A rollout is one JSON object per line, {"timestamp", "type", "payload"}:
// session_meta (thread id, cwd, cli_version) first, then turn_context,
// response_item (the conversation: messages, reasoning, tool calls and their
// outputs), event_msg (task_started, token_count, task_complete, …) and,
// from 0.169 on, world_state, token_usage_record and an "ordinal" field.
// The parser keys on what a line contains rather than on the release that
// wrote it, and ignores every type it does not know (DESIGN.md, "Data
// sources", item 5).
package codex

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Agent is the value of event.Event.Agent for Codex sessions.
const Agent = "codex"

// ErrNotJSON marks a line that is not a JSON object. The caller counts and
// skips it; nothing else is lost.
var ErrNotJSON = errors.New("codex rollout line is not a JSON object")

// noPrice is the default price.Func: it knows no model, so nothing is
// silently free until a real price table is injected.
func noPrice(string, event.Usage) (float64, bool) { return 0, false }

var (
	_ agent.Parser = (*Parser)(nil)
	_ agent.Waiter = (*Parser)(nil)
)

// parsers are shared by every Parser: fastjson keeps buffers as large as
// the largest line it parsed, which many sessions should not each hold.
var parsers fastjson.ParserPool

// Parser turns rollout lines into events. It is not safe for concurrent
// use. Events carry no ID, SessionID or Agent: the engine stamps them
// (SessionID = ThreadID(), Agent = "codex").
//
// Feed it complete lines in file order from the rollout's first line
// (linefile.Reader does the splitting; a partial last line waits).
// Call Flush at EOF, Quiet after a quiet spell while Unsure() (0.47 only:
// 0.169 ends turns explicitly), EndTurn when the notify program reports
// agent-turn-complete for the thread or its process is gone, and show
// needs_input while NeedsInput() says so. Persist Save() with the events.
type Parser struct {
	// Price prices each turn (default: no model is known). A model with
	// no price makes the turn's cost_usd null, never 0.
	Price price.Func
	state State
	// parseAll turns off the look at a line's type before parsing it
	// (skippable), for the test that proves the look changes nothing.
	parseAll bool
	// record: keep each turn's charges; ended holds those of the turns
	// ended since TakeCharges.
	record bool
	ended  []TurnCharges
	// changes counts the changes to state made but by reading lines
	// (StateChanges).
	changes uint64
}

// TurnCharges is what made one turn's cost: the model it was priced as
// when it had no response, else each response as priced.
type TurnCharges struct {
	Model   string
	Charges []price.Request
}

// RecordCharges makes the parser keep what made each turn's cost, for
// TakeCharges: the usage cache reprices turns without reading them again.
func (p *Parser) RecordCharges() { p.record = true }

// TakeCharges returns the charges of each turn ended since the last call,
// in the order of their turn_complete events.
func (p *Parser) TakeCharges() []TurnCharges {
	out := p.ended
	p.ended = nil
	return out
}

// Reprice works out with pf what a turn's charges cost, as the parser
// would have priced the turn with it.
func Reprice(tc TurnCharges, pf price.Func) (cost float64, known bool) {
	if len(tc.Charges) == 0 {
		return pf(tc.Model, event.Usage{}) // nothing used: is the model known?
	}
	known = true
	for _, c := range tc.Charges {
		usd, ok := pf(c.Model, c.Usage)
		cost += usd
		known = known && ok
	}
	return cost, known
}

// State is everything a Parser remembers between lines: small, and
// O(1) in the length of a turn (open tool calls only).
type State struct {
	ThreadID string `json:"thread_id,omitempty"`
	Cwd      string `json:"cwd,omitempty"`
	Version  string `json:"version,omitempty"` // cli_version of session_meta
	Model    string `json:"model,omitempty"`   // from the last turn_context
	// Exact is set once the record shows task_started/task_complete
	// (0.169 writes them; 0.47 does not): turn ends are then known, never
	// inferred.
	Exact bool `json:"exact,omitempty"`
	// Records is set once a token_usage_record was seen (0.169): usage
	// comes from those, and token_count is ignored.
	Records bool `json:"records,omitempty"`
	// Total is the last token_count's running total: 0.47 repeats a
	// token_count with the same totals before each model call.
	Total    [5]int64          `json:"total,omitempty"`
	Tools    map[string]string `json:"tools,omitempty"` // open call id → tool name
	Turn     *Turn             `json:"turn,omitempty"`
	Waiting  string            `json:"waiting,omitempty"` // why Codex waits for the person, "" if not
	WaitCall string            `json:"wait_call,omitempty"`
	LastText string            `json:"last_text,omitempty"` // start of the last agent message
}

// Turn accumulates one turn, from the person's prompt (or task_started) to
// its end.
type Turn struct {
	ID    string      `json:"id,omitempty"`
	Start time.Time   `json:"start"`
	Last  time.Time   `json:"last"`
	Model string      `json:"model,omitempty"`
	Usage event.Usage `json:"usage"`
	// Response is the last token_usage_record's response id, so that a
	// repeated record is not counted twice.
	Response string `json:"response,omitempty"`
	// Unsure is set (0.47) when the newest item was an agent message with
	// no tool call open: the turn probably ended, which only a quiet spell
	// or the next prompt confirms.
	Unsure bool `json:"unsure,omitempty"`
	// Cost sums each response's price, priced one by one because a long
	// prompt's tier depends on that request alone; Unpriced is set when
	// one of them had no price.
	Cost      float64 `json:"cost,omitempty"`
	Unpriced  bool    `json:"unpriced,omitempty"`
	Responses int     `json:"responses,omitempty"`
	// Charges are the responses as priced, kept only by a parser asked
	// to (RecordCharges): the usage cache reprices turns from them.
	Charges []price.Request `json:"charges,omitempty"`
}

// NewParser returns a parser resuming from saved (a Save result), or a
// fresh one when saved is empty.
func NewParser(saved json.RawMessage) (*Parser, error) {
	p := &Parser{}
	if err := agent.LoadState("codex", saved, &p.state); err != nil {
		return nil, err
	}
	return p, nil
}

// Save returns the parser's state as JSON.
func (p *Parser) Save() (json.RawMessage, error) { return agent.SaveState("codex", &p.state) }

// State returns a copy of the parser's state (for tests and diagnostics).
func (p *Parser) State() State { return p.state }

// ThreadID is the Codex thread id from session_meta, "" before it.
func (p *Parser) ThreadID() string { return p.state.ThreadID }

// Cwd is the session's working directory from session_meta.
func (p *Parser) Cwd() string { return p.state.Cwd }

// Version is the Codex release that wrote the record.
func (p *Parser) Version() string { return p.state.Version }

// InTurn reports whether a turn is open (Codex is working).
func (p *Parser) InTurn() bool { return p.state.Turn != nil }

// Unsure reports whether the open turn's end can only be inferred from a
// quiet spell: releases that write no task_complete (0.47).
func (p *Parser) Unsure() bool { return p.state.Turn != nil && !p.state.Exact }

// NeedsInput reports whether Codex waits for the person (an approval or a
// question it asked) and why; the engine shows needs_input meanwhile.
func (p *Parser) NeedsInput() (reason string, waiting bool) {
	return p.state.Waiting, p.state.Waiting != ""
}

// Reasons Codex waits for the person, as the status event's reason names
// them: the ones Claude Code sessions have for the same waits, so a client
// treats both agents alike.
const (
	// ReasonApproval: a command, patch or tool call waits for the
	// person's approval (Claude Code's permission prompt).
	ReasonApproval = event.ReasonPermission
	// ReasonQuestion: Codex asked the person a question.
	ReasonQuestion = event.ReasonQuestion
)

// Ask records that Codex waits for the person now, for reason, as a hook
// said: 0.169's PermissionRequest hook runs just before Codex asks for an
// approval, which its rollout never records. The wait lasts until the
// record shows the conversation moved on: a tool call's result (the
// approved command ran, or a refusal), a message, the turn's end. A new
// tool call does not end it: it may be the very call waiting, written
// after the hook ran.
func (p *Parser) Ask(reason string) {
	if reason == "" || (p.state.Waiting == reason && p.state.WaitCall == "") {
		return
	}
	p.state.Waiting, p.state.WaitCall = reason, ""
	p.changes++
}

// StateChanges counts the changes to the parser's state made by anything
// but reading lines: Quiet, EndTurn, Interrupt and Ask. Every call but
// Line that changes the state moves it, and none that leaves the state
// as it was (a line may move it too). So the engine, which journals the
// whole state when it changed with no bytes read, can tell without
// encoding the state after every batch (TestStateChangesCount holds
// every method to that).
func (p *Parser) StateChanges() uint64 { return p.changes }

// Waiting is NeedsInput's reason alone, for the engine (agent.Waiter).
func (p *Parser) Waiting() string { return p.state.Waiting }

// LastText is the start of the last agent message, for notifications.
func (p *Parser) LastText() string { return p.state.LastText }

// Flush is called when the reader caught up with the end of the file.
// Codex's ends are explicit (task_complete) or inferred on Quiet, so there
// is nothing to settle here.
func (p *Parser) Flush(out []event.Event) []event.Event { return out }

// Quiet ends a turn whose end is only inferred (0.47): the last item was
// an agent message, no tool call is open, and the file has been quiet.
func (p *Parser) Quiet(out []event.Event) []event.Event {
	t := p.state.Turn
	if t == nil || p.state.Exact || !t.Unsure || len(p.state.Tools) > 0 {
		return out
	}
	return p.endTurn(out, t.Last, 0)
}

// EndTurn ends the open turn now: a notify program or hook said so.
func (p *Parser) EndTurn(out []event.Event) []event.Event {
	if p.state.Turn == nil {
		return out
	}
	return p.endTurn(out, p.state.Turn.Last, 0)
}

// Interrupt ends the open turn of a Codex that is gone (agent.Parser):
// with an interrupted turn_complete when it spent anything — a 0.47 turn
// cut off after its token counts but before any message still spent
// them — silently when it spent nothing.
func (p *Parser) Interrupt(out []event.Event) []event.Event {
	t := p.state.Turn
	if t == nil {
		return out
	}
	drop := func() {
		p.state.Turn = nil
		p.state.Waiting, p.state.WaitCall = "", ""
		p.state.Tools = nil
		p.changes++
	}
	end := func(out []event.Event) []event.Event {
		ts := t.Last
		if ts.IsZero() {
			ts = t.Start
		}
		return p.endTurn(out, ts, 0)
	}
	return agent.Interrupt(out, t.Usage != (event.Usage{}), drop, end)
}

// Line parses one rollout line and appends its events to out. A line that
// is not a JSON object returns ErrNotJSON and leaves the state untouched.
func (p *Parser) Line(line []byte, out []event.Event) ([]event.Event, error) {
	if !p.parseAll && skippable(line) {
		return out, nil
	}
	err := agent.ParseObject(line, ErrNotJSON, func(v *fastjson.Value) error {
		out = p.item(v, out)
		return nil
	})
	return out, err
}

// item reads one rollout line's object.
func (p *Parser) item(v *fastjson.Value, out []event.Event) []event.Event {
	ts := agent.ParseTime(v.GetStringBytes("timestamp"))
	pl := v.Get("payload")
	if pl == nil || pl.Type() != fastjson.TypeObject {
		return out // a type this parser does not know, or an empty line object
	}
	switch string(v.GetStringBytes("type")) {
	case "session_meta":
		p.sessionMeta(pl)
	case "turn_context":
		if m := pl.GetStringBytes("model"); len(m) > 0 && string(m) != p.state.Model { // 0.47 repeats it before every call
			p.state.Model = string(m)
			if p.state.Turn != nil {
				p.state.Turn.Model = p.state.Model
			}
		}
	case "response_item":
		out = p.responseItem(pl, ts, out)
	case "event_msg":
		out = p.eventMsg(pl, ts, out)
	case "token_usage_record":
		p.usageRecord(pl, ts)
	}
	return out
}

func (p *Parser) sessionMeta(pl *fastjson.Value) {
	// 0.47 nests the meta under "meta" in some lines of forked sessions;
	// current releases put it at the top of the payload.
	if m := pl.Get("meta"); m != nil && m.Type() == fastjson.TypeObject {
		pl = m
	}
	if id := pl.GetStringBytes("id"); len(id) > 0 {
		p.state.ThreadID = string(id)
	}
	if cwd := pl.GetStringBytes("cwd"); len(cwd) > 0 {
		p.state.Cwd = string(cwd)
	}
	if ver := pl.GetStringBytes("cli_version"); len(ver) > 0 {
		p.state.Version = string(ver)
	}
}

func (p *Parser) eventMsg(pl *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	switch typ := pl.GetStringBytes("type"); string(typ) {
	case "task_started", "turn_started":
		p.state.Exact = true
		if p.state.Turn != nil {
			out = p.endTurn(out, p.state.Turn.Last, 0)
		}
		p.startTurn(ts)
		p.state.Waiting, p.state.WaitCall = "", ""
		p.state.Turn.ID = string(pl.GetStringBytes("turn_id"))
	case "task_complete", "turn_complete":
		p.state.Exact = true
		if p.state.Turn == nil {
			return out // its task_started was before we joined, and nothing since
		}
		out = p.endTurn(out, ts, pl.GetInt64("duration_ms"))
	case "turn_aborted":
		if p.state.Turn != nil {
			n := len(out)
			out = p.endTurn(out, ts, 0)
			out[n].Interrupted = true
		}
		p.state.Tools = nil // the interrupted calls will never be answered
		p.state.Waiting, p.state.WaitCall = "", ""
	case "token_count":
		p.tokenCount(pl, ts)
	case "exec_approval_request", "apply_patch_approval_request", "request_permissions":
		// No release writes these to the rollout (its persistence policy,
		// should_persist_event_msg, drops them: they go to the UI only),
		// but a release that did would be understood.
		p.state.Waiting, p.state.WaitCall = ReasonApproval, ""
	case "request_user_input", "elicitation_request":
		p.state.Waiting, p.state.WaitCall = ReasonQuestion, ""
	}
	return out
}

func (p *Parser) startTurn(ts time.Time) {
	p.state.Turn = &Turn{Start: ts, Last: ts, Model: p.state.Model}
}

// touch makes sure a turn is open (we may have joined mid-turn) and moves
// its last-activity time.
func (p *Parser) touch(ts time.Time) *Turn {
	if p.state.Turn == nil {
		p.startTurn(ts)
	}
	t := p.state.Turn
	if !ts.IsZero() {
		t.Last = ts
	}
	return t
}

func (p *Parser) endTurn(out []event.Event, ts time.Time, durationMS int64) []event.Event {
	t := p.state.Turn
	p.state.Turn = nil
	p.changes++
	p.state.Waiting, p.state.WaitCall = "", ""
	p.state.Tools = nil // a call still open when its turn ended is never answered
	e := event.Event{Type: event.TurnComplete, TS: ts, Usage: t.Usage, Model: t.Model}
	if p.record {
		p.ended = append(p.ended, TurnCharges{Model: t.Model, Charges: t.Charges})
	}
	switch {
	case durationMS > 0:
		e.DurationMS = durationMS
	case !t.Start.IsZero() && ts.After(t.Start):
		e.DurationMS = ts.Sub(t.Start).Milliseconds()
	}
	if t.Responses == 0 {
		e.CostUSD, e.CostKnown = p.price(t.Model, t.Usage) // nothing used: is the model known?
	} else {
		e.CostUSD, e.CostKnown = t.Cost, !t.Unpriced
	}
	return append(out, e)
}

// addResponse adds one model response's usage to the open turn, priced on
// its own.
func (p *Parser) addResponse(t *Turn, u event.Usage) {
	t.Usage = t.Usage.Add(u)
	t.Responses++
	if p.record {
		t.Charges = append(t.Charges, price.Request{Model: t.Model, Usage: u})
	}
	usd, known := p.price(t.Model, u)
	t.Cost += usd
	t.Unpriced = t.Unpriced || !known
}

func (p *Parser) price(model string, u event.Usage) (float64, bool) {
	if p.Price == nil {
		return noPrice(model, u)
	}
	return p.Price(model, u)
}
