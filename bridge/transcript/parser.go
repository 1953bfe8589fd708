// Package transcript turns Claude Code's JSONL transcripts into the bridge's
// compact events: Parser reads one record at a time (bridge/linefile
// follows the growing file by byte offset).
//
// The format differs across Claude Code versions (DESIGN.md, "Transcript
// records"); the parser keys on what a record contains rather than on the
// version that wrote it, and ignores every record type it does not know.
package transcript

import (
	"bytes"
	"errors"
	"slices"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// ErrNotJSON marks a line that is not a JSON object. The caller counts and
// skips it; nothing else is lost.
var ErrNotJSON = errors.New("transcript line is not a JSON object")

// Parser turns transcript lines into events. It keeps the little state a
// stream needs across lines (tool names by id, the open turn's usage) in
// State, which the caller may persist and restore to resume after a restart.
// A Parser is not safe for concurrent use.
type Parser struct {
	State State
	// prices prices each response (nil: price.Default); sink, when set,
	// receives the usage this parser reads instead of its own turn: a
	// subagent file's parser counts into its session's parser.
	prices *price.Table
	sink   *Parser
	// countOnly: emit turn_complete events only (CountOnly).
	countOnly bool
	// record: keep each turn's charges (RecordCharges); ended holds those
	// of the turns ended since TakeCharges.
	record bool
	ended  []TurnCharges
	// saved is the size of the last state saved: the next is made in a
	// buffer of about that size, not grown into one.
	saved int
	// scratch is HashState's buffer, kept between calls.
	scratch []byte
	// changes counts the changes to State made but by reading lines
	// (StateChanges).
	changes uint64
	// model is the last model a line named, handed again for the next
	// line naming it (intern): a string made per line was an allocation
	// for every response's line.
	model string
}

// SetPrices makes the parser price with t rather than the built-in table.
func (p *Parser) SetPrices(t *price.Table) { p.prices = t }

// CountInto sends the usage p reads to main's open turn, as a subagent's:
// the session's turn then includes what its subagents spent, and a
// response seen both in a progress record and in the subagent's file is
// counted once.
func (p *Parser) CountInto(main *Parser) { p.sink = main }

// CountOnly makes the parser emit turn_complete events and nothing else,
// for a reader that sums turns (the usage report): it keeps exactly the
// state a full parse keeps, so its turns are the same, but copies no
// content into events nobody reads (a tool result's text, an input).
// The streams never set it.
func (p *Parser) CountOnly() { p.countOnly = true }

// RecordCharges makes the parser keep what made each turn's cost, for
// TakeCharges: the usage cache reprices turns without reading them again.
func (p *Parser) RecordCharges() { p.record = true }

// TurnCharges is what made one turn's cost: its own model (the event
// names an unpriced one instead) and its charges.
type TurnCharges struct {
	Model   string
	Charges []Charge
}

// TakeCharges returns the charges of each turn ended since the last call,
// in the order of their turn_complete events.
func (p *Parser) TakeCharges() []TurnCharges {
	out := p.ended
	p.ended = nil
	return out
}

// EventModel is the model a turn_complete names: the turn's own, unless
// some model of it had no price and the turn's own is not among those.
func EventModel(model string, unknown []string) string {
	if len(unknown) > 0 && (model == "" || !slices.Contains(unknown, model)) {
		return unknown[0]
	}
	return model
}

func (p *Parser) table() *price.Table {
	if p.prices != nil {
		return p.prices
	}
	return price.Default()
}

// parsers are shared by every Parser: fastjson keeps buffers as large as
// the largest line it parsed, which hundreds of workspaces should not
// each hold.
var parsers fastjson.ParserPool

// State is everything a Parser remembers between lines. It is small and
// JSON-serialisable.
type State struct {
	SessionID string            `json:"session_id,omitempty"`
	Tools     map[string]string `json:"tools,omitempty"` // unanswered tool_use id → tool name
	Turn      *Turn             `json:"turn,omitempty"`  // the open turn, if any
	// Recent are the last responses counted, so that each is counted once
	// however many lines repeat it (bounded: recentMax).
	Recent []counted `json:"recent,omitempty"`
	// Carry is usage read while no turn was open (a background subagent,
	// the last lines of a response whose turn already ended): the next
	// turn includes it.
	Carry    *Totals `json:"carry,omitempty"`
	LastText string  `json:"last_text,omitempty"` // start of the last assistant text, for notifications
	Version  string  `json:"version,omitempty"`   // the Claude Code version writing the transcript
	// Ended is the id of the response that ended the last turn: more
	// lines of it (read after the turn was flushed) add content, not a turn.
	Ended string `json:"ended,omitempty"`
	// Hooked: the session's Stop hook calls the bridge, which then holds
	// a turn's end until the hook says whether it goes on (HookedStops).
	Hooked bool `json:"hooked,omitempty"`
	// GoesOn counts the Stop hooks that went on with the turn (a message
	// handed over: StopGoesOn) whose record is not read yet. Claude Code
	// writes its record after its hooks have run, so the next Stop hook's
	// word that the turn is over can come while the record read so far
	// still ends at the reply the earlier hook went on from (StopEnded).
	GoesOn int `json:"goes_on,omitempty"`
	// EndedAt is when the last turn ended. A subagent file's response
	// from before it belongs to a turn already reported (its file was
	// read after the session's, as when a finished session is first
	// read from the start): it is counted in no later turn.
	EndedAt time.Time `json:"ended_at,omitzero"`
	// Warming counts the warm-ups (Claude Code 2.0's "Warmup" subagents,
	// sent as a run starts) the open or next turn waits for: asked no
	// later than its end, not answered yet (warmupAsked). Their answers
	// count in it, so its turn_complete waits for them (Turn.Waits).
	Warming int `json:"warming,omitempty"`
	// Warm and Later are a warm-up's file's own (a parser with a sink):
	// a warm-up its session's turn waits for, not answered yet; or one
	// asked after the turn's end response, whose answer counts in the
	// session's next turn.
	Warm  bool `json:"warm,omitempty"`
	Later bool `json:"later,omitempty"`
}

// Turn accumulates one turn: from a prompt to the response that ends it.
type Turn struct {
	Start time.Time `json:"start"`
	Last  time.Time `json:"last"`
	Model string    `json:"model,omitempty"`
	Sum   Totals    `json:"sum"`
	// Usage is what journals before Sum held: usage by response, folded
	// into Sum when such a journal is resumed.
	Usage map[string]event.Usage `json:"usage,omitempty"`
	// EndMsg is the message id of a response that ended the turn; the
	// turn_complete waits until no further line of that message follows.
	EndMsg string `json:"end_msg,omitempty"`
	// Unsure is set while the newest response's end is unknown: before 2.1
	// most lines say stop_reason null, so the end is inferred.
	Unsure bool `json:"unsure,omitempty"`
	// Said: the Stop hook said the turn is over (StopEnded, Backstop)
	// while the record read so far did not end it yet (a tool call's
	// result still on its way): a quiet spell then ends it, as in a
	// session whose hooks do not call in (Held).
	Said bool `json:"said,omitempty"`
	// Waits: the turn's end came (its end response, the Stop hook's word,
	// a quiet spell) while warm-ups it waits for were not answered yet
	// (State.Warming): it ends once they are, or at the next prompt, its
	// agent's death or the Stop hook's backstop.
	Waits bool `json:"waits,omitempty"`
}

// Line parses one transcript line and appends its events to out. Events
// carry no ID; the stream assigns those. A line that is not JSON returns
// ErrNotJSON and leaves the state untouched.
func (p *Parser) Line(line []byte, out []event.Event) ([]event.Event, error) {
	err := agent.ParseObject(line, ErrNotJSON, func(v *fastjson.Value) error {
		out = p.entry(v, out)
		return nil
	})
	return out, err
}

// entry reads one transcript line's object.
func (p *Parser) entry(v *fastjson.Value, out []event.Event) []event.Event {
	typ := string(v.GetStringBytes("type"))
	ts := agent.ParseTime(v.GetStringBytes("timestamp"))

	// A pending end of turn is settled by the first line that is not part
	// of the response that ended it — but for what Claude Code writes
	// while its Stop hooks run (attachments: the hooks' results, a prompt
	// snapshot), and for a Stop hook's answer that goes on with the turn,
	// which makes it one turn, not two (stopContinues).
	if t := p.State.Turn; t != nil && t.Waits && p.State.Warming == 0 {
		out = p.endTurn(out, t.Last) // the warm-ups it waited for are answered
	}
	if t := p.State.Turn; t != nil && t.EndMsg != "" {
		switch {
		case typ == "assistant" && string(v.GetStringBytes("message", "id")) == t.EndMsg:
		case stopContinues(typ, v):
			t.EndMsg, t.Waits = "", false
			if p.State.GoesOn > 0 {
				p.State.GoesOn--
			}
		case typ == "attachment":
		case typ != "user" && typ != "assistant" && p.State.Warming > 0:
			t.Waits = true // a line of no prompt, no response: the turn's end waits for its warm-ups
		default:
			out = p.endTurn(out, t.Last)
		}
	}
	if sid := v.GetStringBytes("sessionId"); len(sid) > 0 && string(sid) != p.State.SessionID {
		p.State.SessionID = string(sid)
	}
	if ver := v.GetStringBytes("version"); len(ver) > 0 && string(ver) != p.State.Version {
		p.State.Version = string(ver)
	}

	switch typ {
	case "assistant":
		out = p.assistant(v, ts, out)
	case "user":
		out = p.user(v, ts, out)
	case "attachment":
		out = p.attachment(v, ts, out)
	case "progress":
		if r, ok := responseOf(v, &p.model); ok {
			p.count(r)
		}
	case "system":
		// A stop hook summary follows the response that ended a turn.
		// Before 2.1 that response says no stop reason: the summary is
		// the record's own word that its Stop hooks ran, as the hook's
		// call to the bridge is (StopEnded).
		if string(v.GetStringBytes("subtype")) == "stop_hook_summary" && p.State.Turn != nil {
			switch t := p.State.Turn; {
			case t.EndMsg != "":
				out = p.endDue(out)
			case t.Unsure:
				t.Said = true
				out = p.Quiet(out)
			}
		}
	}
	return out
}

// Flush is called when the reader has caught up with the end of the file.
// A response that ended the turn with a known stop reason is complete once
// no more of it is on disk, so its turn_complete goes out now — unless the
// session's Stop hook calls the bridge (HookedStops): it may yet go on
// with the turn, and says when it does not.
func (p *Parser) Flush(out []event.Event) []event.Event {
	switch t := p.State.Turn; {
	case t == nil:
	case t.Waits && p.State.Warming == 0:
		out = p.endTurn(out, t.Last) // the warm-ups it waited for are answered
	case t.EndMsg != "" && !p.State.Hooked:
		out = p.endDue(out)
	}
	return out
}

// endDue ends the open turn, whose end came — unless warm-ups it waits for
// are not answered yet (State.Warming): it then waits for them (Waits).
func (p *Parser) endDue(out []event.Event) []event.Event {
	t := p.State.Turn
	if p.State.Warming > 0 {
		if !t.Waits {
			t.Waits = true
			p.changes++
		}
		return out
	}
	return p.endTurn(out, t.Last)
}

// warmupAsked is told by a subagent file's parser that a warm-up was
// asked at ts, and says whether the session's turn waits for its answer
// (asked before the open turn's end response, or between turns: the next
// turn waits) or not (asked after the end response of a turn whose end is
// known: its answer counts in the next turn).
func (p *Parser) warmupAsked(ts time.Time) (waited bool) {
	if t := p.State.Turn; t != nil && (t.EndMsg != "" || t.Waits) && ts.After(t.Last) {
		return false
	}
	p.State.Warming++
	return true
}

// Quiet is called after the file has been quiet for a while. For versions
// that never write a stop reason, a turn whose last response asked for no
// tool ends here (DESIGN.md: no tool call left unanswered, no further
// line, a short quiet spell) — unless the session's Stop hook calls the
// bridge and has not spoken yet (Held); so does a turn whose end Flush
// held for the Stop hook.
func (p *Parser) Quiet(out []event.Event) []event.Event { return p.quiet(out, false) }

// quiet is Quiet; with force, warm-ups not answered yet do not hold the
// turn's end (Backstop).
func (p *Parser) quiet(out []event.Event, force bool) []event.Event {
	if p.Held() {
		return out
	}
	t := p.State.Turn
	if t == nil || (!t.Unsure && t.EndMsg == "" && !t.Waits) || len(p.State.Tools) > 0 {
		return out
	}
	if force {
		return p.endTurn(out, t.Last)
	}
	return p.endDue(out)
}

// Held reports whether the open turn's end waits for the Stop hook's word
// though a quiet spell would infer it (agent.StopHooked): the last
// response says no stop reason (2.0 writes each block of a response as a
// line of its own, without one), so only a quiet spell would end the turn,
// but a pause is no proof — 2.0 writes a tool call's line once its input
// has streamed, which can be long after the text before it, and a busy
// machine pauses it too — while the session's Stop hook, which calls the
// bridge, says when the turn is over. The hook's word (StopEnded), the
// record's stop hook summary, the next prompt, or the engine's long
// backstop (Backstop) end a held turn; a dead agent's is interrupted.
func (p *Parser) Held() bool {
	t := p.State.Turn
	return t != nil && t.Unsure && p.State.Hooked && !t.Said
}

// Backstop ends a held turn (Held) whose Stop hook never spoke, after a
// long quiet: as a quiet spell would end it in a session whose hooks do
// not call in.
func (p *Parser) Backstop(out []event.Event) []event.Event {
	p.said()
	return p.quiet(out, true)
}

// said notes that the Stop hook said the open turn is over (Turn.Said).
func (p *Parser) said() {
	if t := p.State.Turn; t != nil && !t.Said {
		t.Said = true
		p.changes++
	}
}

// HookedStops tells the parser that the session's hooks call the bridge,
// so its Stop hook will say whether a turn that the record says ended goes
// on (Claude Code 2.1 continues a turn with a Stop hook's additional
// context; older releases with its feedback): Flush then holds the turn's
// end for that word (Quiet), or for the record's own (a line that settles
// it, the stop hooks' summary). A message handed over at the end of a turn
// thus never splits it, in the stream as in the usage report, which reads
// the whole record.
func (p *Parser) HookedStops() {
	if !p.State.Hooked {
		p.State.Hooked = true
		p.changes++
	}
}

// StopGoesOn tells the parser that a Stop hook went on with the turn (it
// handed a message over): the end it is about is not the turn's, and a
// Stop hook's later word that the turn is over is about a reply after the
// record of this one (StopEnded).
func (p *Parser) StopGoesOn() {
	p.State.GoesOn++
	p.changes++
}

// StopEnded is the Stop hook's word that the turn is over. It ends the
// turn as Quiet does — unless a Stop hook went on with the turn and the
// record of that is not read yet: the end read so far is then the one the
// hook went on from, not the one this word is about, and the record's own
// lines (the continuation, then the stop hooks' summary after the last
// reply) settle the turn, or the quiet spell does.
func (p *Parser) StopEnded(out []event.Event) []event.Event {
	if p.State.GoesOn > 0 {
		return out
	}
	p.said() // the record not read to its end yet: a quiet spell ends it
	return p.Quiet(out)
}

// stopContinues reports whether a line is a Stop hook's answer going on
// with the turn that had ended: its additional context (2.1), or its
// feedback on a block (before).
func stopContinues(typ string, v *fastjson.Value) bool {
	switch typ {
	case "attachment":
		a := v.Get("attachment")
		return a != nil && string(a.GetStringBytes("type")) == "hook_additional_context" &&
			string(a.GetStringBytes("hookEvent")) == "Stop"
	case "user":
		c := v.Get("message", "content")
		return v.GetBool("isMeta") && c != nil && c.Type() == fastjson.TypeString &&
			bytes.HasPrefix(c.GetStringBytes(), stopFeedback)
	}
	return false
}

// stopFeedback starts the record of a Stop hook's block, which Claude Code
// hands the model as the user's.
var stopFeedback = []byte("Stop hook feedback:")

// EndTurn ends the open turn now, if any: the Stop hook says exactly when.
func (p *Parser) EndTurn(out []event.Event) []event.Event {
	if p.State.Turn == nil {
		return out
	}
	return p.endTurn(out, p.State.Turn.Last)
}

// InTurn reports whether a turn is open (the agent is working).
func (p *Parser) InTurn() bool { return p.State.Turn != nil }

func (p *Parser) startTurn(ts time.Time) {
	p.State.Turn = &Turn{Start: ts, Last: ts}
	p.State.Turn.Sum.merge(p.State.Carry)
	p.State.Carry = nil
}

// count adds one line's usage to the open turn (or to Carry), or to the
// session parser's when this parser reads a subagent file.
func (p *Parser) count(r Response) {
	if p.sink != nil {
		s := p.sink
		if p.State.Warm {
			// The answer a turn of the session waits for: it counts
			// there, however late it came.
			p.State.Warm = false
			if s.State.Warming > 0 {
				s.State.Warming--
			}
		}
		if end := s.State.EndedAt; !r.TS.IsZero() && !end.IsZero() && !r.TS.After(end) {
			return // spent in a turn already reported
		}
		r.Side = true
		if p.State.Later {
			p.State.Later = false
			if t := s.State.Turn; t != nil && (t.EndMsg != "" || t.Waits) {
				s.carry(r) // asked after that turn's end: the next turn's
				return
			}
		}
		s.count(r)
		return
	}
	if p.State.Turn == nil {
		p.carry(r)
		return
	}
	p.State.Turn.Sum.add(&p.State.Recent, r, p.table(), p.record)
}

// carry counts r in the session's next turn (Carry).
func (p *Parser) carry(r Response) {
	if p.State.Carry == nil {
		p.State.Carry = &Totals{}
	}
	p.State.Carry.add(&p.State.Recent, r, p.table(), p.record)
}

func (p *Parser) endTurn(out []event.Event, ts time.Time) []event.Event {
	t := p.State.Turn
	p.State.Turn = nil
	p.changes++
	p.State.GoesOn = 0  // the record settled the turn: a hand-over it never showed is not awaited
	p.State.Warming = 0 // warm-ups still unanswered are waited for no longer
	p.State.Ended = t.EndMsg
	if ts.After(p.State.EndedAt) {
		p.State.EndedAt = ts
	}
	s := t.Sum
	if p.record {
		p.ended = append(p.ended, TurnCharges{Model: t.Model, Charges: s.Log})
	}
	e := event.Event{Type: event.TurnComplete, TS: ts, SessionID: p.State.SessionID, Model: t.Model,
		Usage: s.Usage, CostUSD: s.Cost, CostKnown: len(s.Unknown) == 0,
		SubagentUsage: s.SubUsage, SubagentCostUSD: s.SubCost}
	e.Model = EventModel(e.Model, s.Unknown) // the tooltip names the model that has no price
	if !t.Start.IsZero() && !ts.IsZero() && ts.After(t.Start) {
		e.DurationMS = ts.Sub(t.Start).Milliseconds()
	}
	return append(out, e)
}

// Interrupt ends the open turn of an agent that is gone (agent.Parser):
// with an interrupted turn_complete when it spent anything, silently when
// it spent nothing (a prompt no response answered).
func (p *Parser) Interrupt(out []event.Event) []event.Event {
	t := p.State.Turn
	if t == nil {
		return out
	}
	if t.Waits {
		// The turn was over; only warm-ups it waited for went
		// unanswered (a -p run can exit before they are).
		return p.endTurn(out, t.Last)
	}
	p.State.Tools = nil // the calls still open will never be answered
	spent := t.Sum.Usage != (event.Usage{}) || t.Sum.Cost != 0
	end := func(out []event.Event) []event.Event { return p.endTurn(out, cmpTime(t.Last, t.Start)) }
	drop := func() {
		p.State.Turn = nil
		p.changes++
	}
	return agent.Interrupt(out, spent, drop, end)
}

// cmpTime is a unless it is zero, else b.
func cmpTime(a, b time.Time) time.Time {
	if a.IsZero() {
		return b
	}
	return a
}

// idOf is a message's id as a string: the start of its response's key
// (responseOf) when that is it, else a string of its own; a line of a
// response with usage then makes one string of its id, not two.
func idOf(id []byte, key string) string {
	if len(key) >= len(id) && key[:len(id)] == string(id) {
		return key[:len(id)]
	}
	return string(id)
}

func (p *Parser) assistant(v *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	msg := v.Get("message")
	if msg == nil {
		return out
	}
	side := v.GetBool("isSidechain") || p.sink != nil
	r, hasUsage := responseOf(v, &p.model)
	msgID := idOf(msg.GetStringBytes("id"), r.Key)
	r.TS = ts
	if p.State.Turn == nil {
		if side || (msgID != "" && msgID == p.State.Ended) {
			// A subagent's line outside a main turn, or the rest of the
			// response that ended the last turn, belongs to no new turn;
			// what it used goes to the next one.
			if hasUsage {
				p.count(r)
			}
			return p.blocks(msg, ts, side, out)
		}
		p.startTurn(ts) // a response with no prompt seen: we joined mid-session
	}
	t := p.State.Turn
	if !ts.IsZero() {
		t.Last = ts
	}
	if !side {
		if m := msg.GetStringBytes("model"); len(m) > 0 && string(m) != "<synthetic>" {
			t.Model = intern(&p.model, m)
		}
	}
	if hasUsage {
		// Every line of one response repeats its usage: count hands it
		// to the turn once (Totals.add).
		p.count(r)
	}
	out = p.blocks(msg, ts, side, out)
	if side {
		return out
	}
	switch stop := msg.Get("stop_reason"); {
	case stop == nil || stop.Type() == fastjson.TypeNull:
		t.Unsure, t.EndMsg = true, ""
	case string(stop.GetStringBytes()) == "tool_use":
		t.Unsure, t.EndMsg = false, ""
	default: // end_turn, stop_sequence, max_tokens, refusal, pause_turn …
		t.Unsure, t.EndMsg = false, msgID
		if msgID == "" {
			t.EndMsg = "?" // no id to match further lines against: end at the next line
		}
	}
	return out
}

// blocks emits the events for an assistant message's content blocks.
func (p *Parser) blocks(msg *fastjson.Value, ts time.Time, side bool, out []event.Event) []event.Event {
	base := event.Event{TS: ts, SessionID: p.State.SessionID, Sidechain: side}
	for _, b := range msg.GetArray("content") {
		switch string(b.GetStringBytes("type")) {
		case "text":
			text := b.GetStringBytes("text")
			if len(text) == 0 {
				continue
			}
			if p.countOnly {
				if !side {
					p.State.LastText, _ = cut(text)
				}
				continue
			}
			e := base
			e.Type = event.Assistant
			e.Content, e.Truncated = cut(text)
			if !side {
				p.State.LastText = e.Content
			}
			out = append(out, e)
		case "thinking":
			if p.countOnly {
				continue // no state: only an event
			}
			text := b.GetStringBytes("thinking")
			if len(text) == 0 {
				continue // redacted or signature-only
			}
			e := base
			e.Type = event.Thinking
			e.Content, e.Truncated = cut(text)
			out = append(out, e)
		case "tool_use", "server_tool_use":
			e := base
			e.Type = event.ToolUse
			e.Name = string(b.GetStringBytes("name"))
			e.ToolUseID = string(b.GetStringBytes("id"))
			if e.ToolUseID != "" {
				if p.State.Tools == nil {
					p.State.Tools = make(map[string]string)
				}
				p.State.Tools[e.ToolUseID] = e.Name
			}
			if p.countOnly {
				continue
			}
			e.Input, e.TruncIn = toolInput(e.Name, b.Get("input"))
			out = append(out, e)
		}
	}
	return out
}

func (p *Parser) user(v *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	side := v.GetBool("isSidechain")
	base := event.Event{TS: ts, SessionID: p.State.SessionID, Sidechain: side}
	content := v.Get("message", "content")
	if content == nil {
		return out
	}
	// Records Claude Code writes for itself (meta notes, summaries, task
	// notifications) are not the person's input, unless they carry a
	// message the bridge injected: the Stop hook's feedback is meta, an
	// idle wake arrives as a task notification.
	system := v.GetBool("isMeta") || v.GetBool("isCompactSummary") || v.GetBool("isVisibleInTranscriptOnly") ||
		string(v.GetStringBytes("origin", "kind")) == "task-notification"
	if system {
		if text := content.GetStringBytes(); content.Type() == fastjson.TypeString && injected(text) {
			return p.prompt(base, text, out)
		}
		return out
	}
	if content.Type() == fastjson.TypeString {
		if p.sink != nil && isWarmup(v, content) {
			if p.sink.warmupAsked(ts) {
				p.State.Warm = true
			} else {
				p.State.Later = true
			}
		}
		return p.prompt(base, content.GetStringBytes(), out)
	}
	var text []byte
	for _, b := range content.GetArray() {
		switch string(b.GetStringBytes("type")) {
		case "tool_result":
			out = p.toolResult(base, b, out)
		case "text":
			if len(text) > 0 {
				text = append(text, '\n')
			}
			text = append(text, b.GetStringBytes("text")...)
		}
	}
	if len(text) > 0 {
		out = p.prompt(base, text, out)
	}
	return out
}

// isWarmup reports whether a subagent file's line is 2.0's warm-up prompt:
// "Warmup", starting its conversation.
func isWarmup(v, content *fastjson.Value) bool {
	parent := v.Get("parentUuid")
	return parent != nil && parent.Type() == fastjson.TypeNull &&
		string(bytes.TrimSpace(content.GetStringBytes())) == "Warmup"
}

// interrupted starts the note Claude Code records when the person stops
// the agent (Esc): the turn is over, and the note is not their input.
var interrupted = []byte("[Request interrupted by user")

// prompt emits a user's prompt and, for the main agent, starts a turn.
func (p *Parser) prompt(base event.Event, text []byte, out []event.Event) []event.Event {
	if len(text) == 0 {
		return out
	}
	if bytes.HasPrefix(text, interrupted) {
		if p.State.Turn != nil && !base.Sidechain {
			n := len(out)
			out = p.endTurn(out, base.TS)
			out[n].Interrupted = true
			p.State.Tools = nil // the interrupted calls will never be answered
		}
		return out
	}
	if !base.Sidechain {
		if p.State.Turn != nil && p.State.Turn.Unsure && len(p.State.Tools) == 0 {
			// An old-format turn whose end was not yet inferred: a new
			// prompt proves it ended.
			out = p.endTurn(out, p.State.Turn.Last)
		}
		if p.State.Turn == nil {
			p.startTurn(base.TS)
		}
	}
	if p.countOnly {
		return out
	}
	e := base
	e.Type = event.User
	e.Content, e.Truncated = cut(text)
	e.System = bytes.HasPrefix(bytes.TrimSpace(text), conductorInstruction)
	return append(out, e)
}

// conductorInstruction starts the first prompt of every Conductor session:
// Conductor's own instructions, not something the person typed.
var conductorInstruction = []byte("<system_instruction>")

func (p *Parser) toolResult(base event.Event, b *fastjson.Value, out []event.Event) []event.Event {
	id := b.GetStringBytes("tool_use_id")
	name, answered := p.State.Tools[string(id)]
	if answered {
		delete(p.State.Tools, string(id))
	}
	if t := p.State.Turn; t != nil {
		if !base.TS.IsZero() {
			t.Last = base.TS
		}
		if !base.Sidechain {
			// A tool's result goes back to the model, which must answer
			// it: the turn cannot have ended here, however long the answer
			// takes (an old release's quiet spell after a subagent is not
			// its end).
			t.Unsure = false
		}
	}
	if p.countOnly {
		return out
	}
	e := base
	e.Type = event.ToolResult
	e.ToolUseID, e.Name = string(id), name
	e.IsError = b.GetBool("is_error")
	e.Output, e.TruncOut = resultText(b.Get("content"))
	return append(out, e)
}

// attachment handles the records Claude Code 2.1 writes for what hooks
// added to the conversation: a message the bridge injected mid-turn
// (PostToolUse additional context) or that woke a busy agent (a queued
// task notification) shows as the person's input. Nothing else here is.
func (p *Parser) attachment(v *fastjson.Value, ts time.Time, out []event.Event) []event.Event {
	a := v.Get("attachment")
	if a == nil {
		return out
	}
	var text []byte
	switch string(a.GetStringBytes("type")) {
	case "hook_additional_context":
		for _, c := range a.GetArray("content") {
			if s := c.GetStringBytes(); injected(s) {
				text = s
				break
			}
		}
	case "queued_command":
		text = a.GetStringBytes("prompt")
	}
	if !injected(text) {
		return out
	}
	base := event.Event{TS: ts, SessionID: p.State.SessionID, Sidechain: v.GetBool("isSidechain")}
	return p.prompt(base, text, out)
}

func injected(text []byte) bool {
	return bytes.Contains(text, []byte(event.InjectedMarker))
}
