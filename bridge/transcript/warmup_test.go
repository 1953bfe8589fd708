package transcript

import (
	"path/filepath"
	"testing"

	"conductorbridge/bridge/event"
)

// TestLateWarmupsCountInTheirTurn reads what real Claude Code 2.0.77 wrote
// in a long-lived session (Conductor's way, the bridge's hooks installed)
// whose three warm-ups the fake model answered after the turn's answer
// (testdata/warmup2077, copied as the binary left it; the bridge's test
// TestRealClaudeLateWarmupsCountInTheirTurn). The warm-ups were asked
// before the prompt, so the turn waits for their answers: in every order
// a follower can read the files in, and whichever word of the turn's end
// comes first (the record read to its end, the Stop hook), there is one
// turn_complete, with the fake model's 111+11 tokens and 100+20 for each
// warm-up.
func TestLateWarmupsCountInTheirTurn(t *testing.T) {
	dir := filepath.Join("testdata", "warmup2077")
	main := readLines(t, filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl"))
	agents, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	if len(agents) != 3 {
		t.Fatalf("%d warm-ups in testdata, want 3", len(agents))
	}
	want := event.Usage{InputTokens: 111 + 3*100, OutputTokens: 11 + 3*20}

	// A follower reads what each file holds at a moment: steps say which
	// lines are on disk when, and end is the word of the turn's end it has
	// then (Flush: the record read to its end; stop: the Stop hook's).
	type read struct {
		main    int // lines of the session's record
		prompts bool
		answers bool
	}
	tests := []struct {
		name   string
		hooked bool
		steps  []read
	}{
		{"answers read with the turn", false, []read{{main: len(main), prompts: true, answers: true}}},
		{"answers read after the turn's end", false, []read{{main: 1, prompts: true}, {main: len(main), prompts: true}, {main: len(main), prompts: true, answers: true}}},
		{"answers after the Stop hook", true, []read{{main: 2, prompts: true}, {main: len(main), prompts: true}, {main: len(main), prompts: true, answers: true}}},
		{"prompts read after the prompt", true, []read{{main: 2}, {main: len(main), prompts: true}, {main: len(main), prompts: true, answers: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Parser{}
			if tt.hooked {
				p.HookedStops()
			}
			subs := make([]*SubParser, len(agents))
			done := make([]int, len(agents))
			at := 0
			var evs []event.Event
			for _, st := range tt.steps {
				for ; at < st.main; at++ {
					evs, _ = p.Line(main[at], evs)
				}
				for i, a := range agents {
					ls := readLines(t, a)
					n := 0
					if st.prompts {
						n = 1
					}
					if st.answers {
						n = len(ls)
					}
					if subs[i] == nil {
						subs[i], _ = NewSubParser(nil)
					}
					subs[i].CountInto(p)
					for ; done[i] < n; done[i]++ {
						evs, _ = subs[i].Line(ls[done[i]], evs)
					}
				}
				evs = p.Flush(evs)
				if tt.hooked && at == len(main) {
					evs = p.StopEnded(evs)
				}
			}
			var turns []event.Event
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					turns = append(turns, e)
				}
			}
			if len(turns) != 1 || turns[0].Usage != want || turns[0].SubagentUsage.InputTokens != 300 {
				t.Fatalf("turns %+v; want one of %+v", turns, want)
			}
		})
	}
}

// TestAWarmupNeverAnsweredEndsItsTurnWhole: the recorded session's
// warm-ups with no answer (a -p run can exit before they come): the turn
// waits for them until its agent is gone, and then ends whole, not
// interrupted, with what the turn itself spent.
func TestAWarmupNeverAnsweredEndsItsTurnWhole(t *testing.T) {
	dir := filepath.Join("testdata", "warmup2077")
	p := &Parser{}
	agents, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	var evs []event.Event
	for _, a := range agents {
		s, _ := NewSubParser(nil)
		s.CountInto(p)
		evs, _ = s.Line(readLines(t, a)[0], evs) // the prompt only
	}
	for _, l := range readLines(t, filepath.Join(dir, "11111111-2222-4333-8444-555555555555.jsonl")) {
		evs, _ = p.Line(l, evs)
	}
	if evs = p.Quiet(p.Flush(evs[:0])); len(evs) != 0 || !p.InTurn() {
		t.Fatalf("the turn ended before its warm-ups' answers: %+v", evs)
	}
	evs = p.Interrupt(evs)
	if len(evs) != 1 || evs[0].Type != event.TurnComplete || evs[0].Interrupted || evs[0].Usage != (event.Usage{InputTokens: 111, OutputTokens: 11}) {
		t.Errorf("at the agent's end: %+v; want a whole turn of 111+11 tokens", evs)
	}
}
