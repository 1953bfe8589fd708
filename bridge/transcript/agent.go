package transcript

import (
	"encoding/json"
	"hash/maphash"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/price"
)

// Parser is the Claude Code format behind the engine's agent.Parser seam.
var _ agent.Parser = (*Parser)(nil)

// NewParser resumes a parser from the state Save returned (nil: a fresh
// one). The saved JSON is the State struct, as journals have always held it.
func NewParser(saved json.RawMessage) (*Parser, error) {
	p := &Parser{}
	if err := agent.LoadState("claude", saved, &p.State); err != nil {
		return &Parser{}, err
	}
	if t := p.State.Turn; t != nil && len(t.Usage) > 0 {
		// A journal from before Sum: its usage by response, at the
		// turn's model (1-hour writes and subagents were not kept).
		for key, u := range t.Usage {
			t.Sum.add(&p.State.Recent, Response{Key: key, Req: price.Request{Model: t.Model, Usage: u}}, p.table(), false)
		}
		t.Usage = nil
	}
	return p, nil
}

// Unsure reports whether the open turn's end can only be inferred from a
// quiet spell (versions before 2.1 write no final stop reason), or waits
// for the Stop hook's word (HookedStops), which the quiet spell stands in
// for should the hook never call.
func (p *Parser) Unsure() bool {
	t := p.State.Turn
	return t != nil && (t.Unsure || (t.EndMsg != "" && p.State.Hooked))
}

// Version is the Claude Code version writing the transcript.
func (p *Parser) Version() string { return p.State.Version }

// Save returns the parser's state for the journal.
func (p *Parser) Save() (json.RawMessage, error) {
	raw, err := encodeState(&p.State, p.saved+p.saved/16+64)
	p.saved = len(raw)
	return raw, err
}

// HashState writes the parser's state to h: two states alike hash alike,
// and a state that would Save differently hashes differently (barring a
// collision). It is Save without the JSON's escaping and number
// formatting, for the engine, which asks after every batch whether a
// state changed, where Save cost it more than anything else a line does.
func (p *Parser) HashState(h *maphash.Hash) {
	p.scratch = stateBytes(p.scratch[:0], &p.State)
	h.Write(p.scratch)
	if cap(p.scratch) > 64<<10 {
		p.scratch = nil
	}
}

// StateChanges counts the changes to the parser's state made by anything
// but reading lines: Flush, Quiet, EndTurn, Interrupt and the Stop hook's
// words (agent.StopHooked). Every call but Line that changes the state
// moves it, and none that leaves the state as it was (a line may move it
// too). So the engine, which journals the whole state when it changed
// with no bytes read, can tell without hashing the state after every
// batch (TestStateChangesCount holds every method to that).
func (p *Parser) StateChanges() uint64 { return p.changes }

// askTools are the tools whose unanswered call means the agent waits for
// the person: Conductor's own question tool, and Claude Code's built-in
// one where Conductor has not disabled it.
var askTools = map[string]bool{"mcp__conductor__AskUserQuestion": true, "AskUserQuestion": true}

// Waiting reports why the agent waits for the person according to the
// transcript alone: "question" while a question tool call has no result
// yet, "" otherwise.
func (p *Parser) Waiting() string {
	for _, name := range p.State.Tools {
		if askTools[name] {
			return "question"
		}
	}
	return ""
}
