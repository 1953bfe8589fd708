package transcript

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
)

// testdata/stophook/2.1.328.jsonl is a real Claude Code 2.1.328 transcript
// (app's TestWordsEndOfTurn, fake model): a prompt, the reply that ends the
// turn, the bridge's Stop hook handing over a side-panel message as
// additional context, and the reply Claude Code goes on with — one turn,
// one result in its stream-json.

func stopHookLines(t *testing.T) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/stophook/2.1.328.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, append([]byte(nil), sc.Bytes()...))
	}
	return out
}

func countTurns(evs []event.Event) (turns, injected int) {
	for _, e := range evs {
		switch {
		case e.Type == event.TurnComplete:
			turns++
		case e.Type == event.User && strings.Contains(e.Content, event.InjectedMarker):
			injected++
		}
	}
	return turns, injected
}

// TestStopHookContinuationIsOneTurn reads the record as the usage report
// does (whole) and as a stream does (caught up after every line, the
// bridge's Stop hook saying the last turn is over), with and without the
// hooks calling in: one turn and the message once wherever the Stop hook's
// word is awaited. A stream that does not wait splits the turn (two): the
// reason the engine marks sessions whose hooks call in.
func TestStopHookContinuationIsOneTurn(t *testing.T) {
	lines := stopHookLines(t)
	tests := []struct {
		name      string
		live      bool // Flush after every line, as a stream caught up
		hooked    bool
		wantTurns int
	}{
		{"whole record", false, false, 1},
		{"stream, hooks call in", true, true, 1},
		{"stream, no hooks", true, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Parser
			if tt.hooked {
				p.HookedStops()
			}
			var evs []event.Event
			for _, l := range lines {
				var err error
				if evs, err = p.Line(l, evs); err != nil {
					t.Fatal(err)
				}
				if tt.live {
					evs = p.Flush(evs)
				}
			}
			evs = p.Flush(evs)
			evs = p.Quiet(evs) // the last Stop hook handed nothing over
			turns, injected := countTurns(evs)
			if turns != tt.wantTurns || injected != 1 {
				t.Errorf("%d turn_complete events and the message %d times, want %d and once", turns, injected, tt.wantTurns)
			}
			if p.InTurn() {
				t.Error("a turn is still open")
			}
		})
	}
}

// TestHeldEndWaitsForTheStopHook: with the hooks calling in, a turn whose
// reply ended it is not over at the end of the file — the Stop hook may go
// on with it — until the hook's word (Quiet), and Unsure says so, so the
// engine's quiet spell stands in should the hook never call.
func TestHeldEndWaitsForTheStopHook(t *testing.T) {
	var p Parser
	p.HookedStops()
	evs := feed(t, &p, prompt, toolCall, toolRes, finalText)
	if n, _ := countTurns(evs); n != 0 || !p.InTurn() || !p.Unsure() {
		t.Fatalf("turn ended at the end of the file (%d), in turn %v, unsure %v", n, p.InTurn(), p.Unsure())
	}
	evs = p.Quiet(nil)
	if n, _ := countTurns(evs); n != 1 || p.InTurn() {
		t.Errorf("the Stop hook's word ended %d turns", n)
	}
	// The next prompt settles a held end just as well.
	var q Parser
	q.HookedStops()
	evs = feed(t, &q, prompt, finalText, prompt)
	if n, _ := countTurns(evs); n != 1 {
		t.Errorf("the next prompt ended %d turns, want 1", n)
	}
}

// TestStopHookWordAheadOfTheRecord: Claude Code writes its record after
// its hooks have run, so the Stop hook after the reply it went on with can
// say the turn is over while the bridge has read the record only up to the
// reply the earlier Stop hook went on from (seen under load in app's
// TestOneTurnOneTurnComplete: five turn_complete events for four results).
// Told that the earlier hook went on (StopGoesOn), the early word ends
// nothing, and the record ends the turn once: one turn.
func TestStopHookWordAheadOfTheRecord(t *testing.T) {
	lines := stopHookLines(t)
	var p Parser
	p.HookedStops()
	var evs []event.Event
	held := -1
	for i, l := range lines {
		var err error
		if evs, err = p.Line(l, evs); err != nil {
			t.Fatal(err)
		}
		evs = p.Flush(evs)
		if p.Unsure() {
			held = i // the reply that ends the turn, its end held for the Stop hook
			break
		}
	}
	if held < 0 {
		t.Fatal("no held end in the record")
	}
	p.StopGoesOn()         // the first Stop hook hands the message over
	evs = p.StopEnded(evs) // the next one's word, ahead of the record
	if n, _ := countTurns(evs); n != 0 || !p.InTurn() {
		t.Fatalf("the word about a later reply ended the turn at the first (%d turn_complete)", n)
	}
	for _, l := range lines[held+1:] {
		var err error
		if evs, err = p.Line(l, evs); err != nil {
			t.Fatal(err)
		}
		evs = p.Flush(evs)
	}
	evs = p.StopEnded(evs) // the word again, as a quiet spell or a replay might bring it
	turns, injected := countTurns(evs)
	if turns != 1 || injected != 1 {
		t.Errorf("%d turn_complete events and the message %d times, want 1 and once", turns, injected)
	}
	if p.InTurn() || p.State.GoesOn != 0 {
		t.Errorf("in turn %v, hand-overs awaited %d, after the record's end", p.InTurn(), p.State.GoesOn)
	}
}
