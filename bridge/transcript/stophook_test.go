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
