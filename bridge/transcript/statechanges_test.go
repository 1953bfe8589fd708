package transcript

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// The engine journals a session's whole state instead of a delta when
// the state changed with no bytes read, and tells that by StateChanges
// alone: a method that changed the state without counting it would
// leave a restart resuming from a state the live parser never had.

// parserMethods sorts every method of *Parser by what it may do to the
// state. A method in none of them fails TestStateChangesCount: whoever
// adds one says which it is, and the test holds it to that.
var parserMethods = struct {
	lines, setup, readOnly, outOfBand []string
}{
	lines: []string{"Line"}, // the bytes explain what it does
	// Set once, before any line: how to count, not what was read.
	setup:    []string{"SetPrices", "CountInto", "CountOnly", "RecordCharges"},
	readOnly: []string{"InTurn", "Unsure", "Version", "Save", "HashState", "Waiting", "Held", "StateChanges", "TakeCharges"},
	// What the engine calls with no line read: a hook's word, a quiet
	// spell, the record read to its end, the agent gone.
	outOfBand: []string{"Flush", "Quiet", "EndTurn", "Interrupt", "HookedStops", "StopGoesOn", "StopEnded", "Backstop"},
}

// TestStateChangesCount calls every method but Line on states real
// Claude Code transcripts lead to, alone and two in a row, told that the
// hooks call in or not: StateChanges moves exactly when the state's
// bytes (what Save writes, through stateBytes) changed.
func TestStateChangesCount(t *testing.T) {
	typ := reflect.TypeFor[*Parser]()
	sorted := slices.Concat(parserMethods.lines, parserMethods.setup, parserMethods.readOnly, parserMethods.outOfBand)
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !slices.Contains(sorted, name) {
			t.Errorf("(*Parser).%s is in no list of parserMethods: say what it does to the state", name)
		}
	}
	var seqs [][]string
	for _, a := range slices.Concat(parserMethods.readOnly, parserMethods.outOfBand) {
		seqs = append(seqs, []string{a})
	}
	for _, a := range parserMethods.outOfBand {
		for _, b := range parserMethods.outOfBand {
			seqs = append(seqs, []string{a, b})
		}
	}
	states := transcriptStates(t)
	for _, saved := range states {
		for _, hooked := range []bool{false, true} {
			for _, seq := range seqs {
				p, err := NewParser(saved)
				if err != nil {
					t.Fatal(err)
				}
				if hooked {
					p.HookedStops()
				}
				for _, name := range seq {
					before, n := string(stateBytes(nil, &p.State)), p.StateChanges()
					call(t, p, name)
					changed, counted := string(stateBytes(nil, &p.State)) != before, p.StateChanges() != n
					if changed != counted || (changed && !slices.Contains(parserMethods.outOfBand, name)) {
						t.Fatalf("%s after %v (hooked %v) on %s: state changed %v, StateChanges moved %v", name, seq, hooked, saved, changed, counted)
					}
				}
			}
		}
	}
	if len(states) < 200 {
		t.Fatalf("%d states from the testdata; want the corpus's 200 and more", len(states))
	}
}

// call calls p's method name with empty arguments.
func call(t *testing.T, p *Parser, name string) {
	m := reflect.ValueOf(p).MethodByName(name)
	var args []reflect.Value
	for i := range m.Type().NumIn() {
		in := m.Type().In(i)
		if in.Kind() == reflect.Pointer {
			args = append(args, reflect.New(in.Elem()))
		} else {
			args = append(args, reflect.Zero(in))
		}
	}
	m.Call(args)
}

// transcriptStates saves a parser's state after every line of the
// testdata's transcripts: turns open and ended, unsure, ended by a stop
// reason the next line settles, with tool calls open, and waiting for
// warm-ups (2.0.77's, asked by subagent files before the prompt).
func transcriptStates(t *testing.T) []json.RawMessage {
	var states []json.RawMessage
	save := func(p *Parser) {
		raw, err := p.Save()
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, raw)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*.jsonl"))
	files = append(files, filepath.Join("testdata", "stophook", "2.1.328.jsonl"))
	for _, f := range files {
		p := &Parser{}
		for _, l := range readLines(t, f) {
			p.Line(l, nil)
			save(p)
		}
	}
	dir := filepath.Join("testdata", "warmup2077")
	p := &Parser{}
	agents, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	for _, a := range agents {
		s, _ := NewSubParser(nil)
		s.CountInto(p)
		s.Line(readLines(t, a)[0], nil) // the warm-up's prompt, not its answer
	}
	for _, l := range readLines(t, filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")) {
		p.Line(l, nil)
		save(p)
	}
	return states
}
