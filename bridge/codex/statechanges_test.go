package codex

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"
)

// The engine journals a session's whole state instead of a delta when
// the state changed with no bytes read, and tells that by StateChanges
// alone: a method that changed the state without counting it would
// leave a restart resuming from a state the live parser never had.

// parserCalls calls every method of *Parser but Line, by what it may do
// to the state. A method in none of them fails TestStateChangesCount:
// whoever adds one says which it is, and the test holds it to that.
var parserCalls = struct {
	setup             []string // set once, before any line: how to count, not what was read
	readOnly          map[string]func(*Parser)
	outOfBand         map[string]func(*Parser) // what the engine calls with no line read
	outOfBandVariants map[string]string        // a call of outOfBand → the method it calls
}{
	setup: []string{"RecordCharges"},
	readOnly: map[string]func(*Parser){
		"Save": func(p *Parser) { p.Save() }, "State": func(p *Parser) { p.State() },
		"ThreadID": func(p *Parser) { p.ThreadID() }, "Cwd": func(p *Parser) { p.Cwd() },
		"Version": func(p *Parser) { p.Version() }, "InTurn": func(p *Parser) { p.InTurn() },
		"Unsure": func(p *Parser) { p.Unsure() }, "NeedsInput": func(p *Parser) { p.NeedsInput() },
		"Waiting": func(p *Parser) { p.Waiting() }, "LastText": func(p *Parser) { p.LastText() },
		"TakeCharges": func(p *Parser) { p.TakeCharges() }, "StateChanges": func(p *Parser) { p.StateChanges() },
	},
	outOfBand: map[string]func(*Parser){
		"Flush":     func(p *Parser) { p.Flush(nil) },
		"Quiet":     func(p *Parser) { p.Quiet(nil) },
		"EndTurn":   func(p *Parser) { p.EndTurn(nil) },
		"Interrupt": func(p *Parser) { p.Interrupt(nil) },
		// A hook's word that Codex waits for the person.
		"Ask approval": func(p *Parser) { p.Ask(ReasonApproval) },
		"Ask question": func(p *Parser) { p.Ask(ReasonQuestion) },
		"Ask nothing":  func(p *Parser) { p.Ask("") },
	},
	outOfBandVariants: map[string]string{"Ask approval": "Ask", "Ask question": "Ask", "Ask nothing": "Ask"},
}

// TestStateChangesCount calls every method but Line on the states the
// corpus's rollouts (0.169, which writes its turns' ends, and 0.47,
// whose ends are inferred) lead to, alone and two in a row: StateChanges
// moves exactly when the state Save writes changed.
func TestStateChangesCount(t *testing.T) {
	typ := reflect.TypeFor[*Parser]()
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		_, ro := parserCalls.readOnly[name]
		_, oob := parserCalls.outOfBand[name]
		if name != "Line" && !ro && !oob && !slices.Contains(parserCalls.setup, name) && !slices.Contains(slices.Collect(maps.Values(parserCalls.outOfBandVariants)), name) {
			t.Errorf("(*Parser).%s is in no list of parserCalls: say what it does to the state", name)
		}
	}
	var seqs [][]string
	for name := range parserCalls.readOnly {
		seqs = append(seqs, []string{name})
	}
	for a := range parserCalls.outOfBand {
		seqs = append(seqs, []string{a})
		for b := range parserCalls.outOfBand {
			seqs = append(seqs, []string{a, b})
		}
	}
	var states []json.RawMessage
	for _, v := range []string{"0.169.0", "0.47.0"} {
		p := &Parser{}
		for _, l := range corpusLines(t, v) {
			p.Line(l, nil)
			raw, err := p.Save()
			if err != nil {
				t.Fatal(err)
			}
			states = append(states, raw)
		}
	}
	for _, saved := range states {
		for _, seq := range seqs {
			p, err := NewParser(saved)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range seq {
				before, n := saveString(t, p), p.StateChanges()
				call, oob := parserCalls.outOfBand[name]
				if !oob {
					call = parserCalls.readOnly[name]
				}
				call(p)
				changed, counted := saveString(t, p) != before, p.StateChanges() != n
				if changed != counted || (changed && !oob) {
					t.Fatalf("%s after %v on %s: state changed %v, StateChanges moved %v", name, seq, saved, changed, counted)
				}
			}
		}
	}
	if len(states) < 100 {
		t.Fatalf("%d states from the corpus; want its 100 and more", len(states))
	}
}

func saveString(t *testing.T, p *Parser) string {
	t.Helper()
	raw, err := p.Save()
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
