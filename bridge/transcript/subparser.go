package transcript

import (
	"encoding/json"
	"strings"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
)

// SubParser reads one subagent's own file (agent.SubParser): 2.1's
// <session>/subagents/*.jsonl, 2.0's agent-*.jsonl beside the session's
// transcript. Every line of it is the subagent's, whatever it says; it
// ends no turn, and what it spent counts in the session's (CountInto).
type SubParser struct {
	p Parser
	// warmup is set for 2.0's warm-up subagents (a lone "Warmup" prompt
	// sent as a session starts, answered at once): they cost, so they
	// count, but the person did nothing there, so they are not shown.
	// It is not saved: a warm-up's file is done with at once.
	warmup bool
}

var _ agent.SubParser = (*SubParser)(nil)

// NewSubParser resumes a subagent file's parser from what Save returned
// (nil: a fresh one).
func NewSubParser(saved json.RawMessage) (*SubParser, error) {
	s := &SubParser{}
	if err := agent.LoadState("claude subagent", saved, &s.p.State); err != nil {
		return &SubParser{}, err
	}
	return s, nil
}

// CountInto counts what the lines read from now on spent into session's
// open turn; a session parser not of this package (nil included) counts
// it nowhere.
func (s *SubParser) CountInto(session agent.Parser) {
	main, ok := session.(*Parser)
	if !ok || main == nil {
		main = &Parser{} // read, but counted nowhere
	}
	s.p.CountInto(main)
}

// Line parses one line of the subagent's file and appends its events,
// each marked Sidechain, none a turn_complete.
func (s *SubParser) Line(line []byte, out []event.Event) ([]event.Event, error) {
	n := len(out)
	out, err := s.p.Line(line, out)
	kept := out[:n]
	for _, e := range out[n:] {
		e.Sidechain = true
		if !s.warmup && e.Type == event.User && strings.TrimSpace(e.Content) == "Warmup" && chainStart(line) {
			s.warmup = true
		}
		if e.Type != event.TurnComplete && !s.warmup {
			kept = append(kept, e)
		}
	}
	// A subagent's turn is none of the session's: keep the state small.
	s.p.State.Turn, s.p.State.Carry, s.p.State.Recent = nil, nil, nil
	return kept, err
}

// chainStart reports whether line starts a conversation (parentUuid
// null): a subagent file's first line.
func chainStart(line []byte) bool {
	v, err := fastjson.ParseBytes(line)
	if err != nil {
		return false
	}
	parent := v.Get("parentUuid")
	return parent != nil && parent.Type() == fastjson.TypeNull
}

// Busy reports whether a tool call of the subagent has no result yet.
func (s *SubParser) Busy() bool { return len(s.p.State.Tools) > 0 }

// Save returns the parser's state for the journal: the State a session's
// parser saves, with no turn of its own.
func (s *SubParser) Save() (json.RawMessage, error) { return s.p.Save() }
