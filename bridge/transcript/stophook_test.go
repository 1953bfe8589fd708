package transcript

import (
	"bufio"
	"bytes"
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
			p := hookedParser(tt.hooked)
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

// testdata/corpus/2.0.77/8ea2c1d2-….jsonl is a real Claude Code 2.0.77
// record (fake model, a Stop hook set): two prompts, each block of a
// response on a line of its own, most with no stop reason — the first
// response's text and its tool call among them — and a stop hook summary
// after the first turn's last reply.
const record2077 = "testdata/corpus/2.0.77/8ea2c1d2-6c13-41e7-8a87-123726d6bb7c.jsonl"

// TestHooked20TurnIsNotSplitByAPause reads the 2.0.77 record as a stream
// does, with a quiet spell after every line (the longest pauses there can
// be: between a text line and its tool call's line, as when the call's
// input streams for a minute or the machine is busy). Where the session's
// Stop hook calls the bridge, the turns are the record's two prompts'
// whichever word ends them — the record's stop hook summary, or the hook's
// call to the bridge where the summary is (a release that writes none);
// the last turn ends at the hook's word after the file's end. The summary
// ends a turn as it is read. Without the hooks, each pause ends a turn:
// the split the quiet rule makes.
func TestHooked20TurnIsNotSplitByAPause(t *testing.T) {
	lines := readLines(t, record2077)
	tests := []struct {
		name      string
		hooked    bool
		summaries bool // keep the record's stop hook summaries (else the hook's word stands there)
		split     bool // more turns than prompts
	}{
		{"hooked, the record's summary", true, true, false},
		{"hooked, the hook's word", true, false, false},
		{"no hooks", false, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := hookedParser(tt.hooked)
			var evs []event.Event
			prompts := 0
			for _, l := range lines {
				if strings.Contains(string(l), `"subtype":"stop_hook_summary"`) && !tt.summaries {
					evs = p.StopEnded(evs)
					continue
				}
				n := len(evs)
				var err error
				if evs, err = p.Line(l, evs); err != nil {
					t.Fatal(err)
				}
				for _, e := range evs[n:] {
					if e.Type == event.User && !e.Sidechain {
						prompts++
					}
				}
				if strings.Contains(string(l), `"subtype":"stop_hook_summary"`) && p.InTurn() {
					t.Error("the turn goes on after the record's stop hook summary")
				}
				evs = p.Flush(evs)
				evs = p.Quiet(evs)
			}
			if tt.hooked && !p.InTurn() {
				t.Fatal("the last turn ended before its Stop hook's word")
			}
			evs = p.StopEnded(evs)
			turns, _ := countTurns(evs)
			if prompts != 2 {
				t.Fatalf("%d prompts read, the record has 2", prompts)
			}
			if split := turns > prompts; split != tt.split || turns < prompts {
				t.Errorf("%d turn_complete events for %d prompts (split expected: %v)", turns, prompts, tt.split)
			}
			if p.InTurn() {
				t.Error("a turn is still open after the Stop hook's word")
			}
		})
	}
}

// TestHeldTurnEnds: a hooked 2.0 turn held for its Stop hook ends at the
// hook's word — at once, or by the next quiet spell when the record read
// so far still has a tool call open (its last lines on their way) — at
// the record's stop hook summary (2.0.77 writes one after its Stop
// hooks), at the next prompt, or at the engine's backstop should the word never come.
func TestHeldTurnEnds(t *testing.T) {
	text := `{"type":"assistant","requestId":"r5","timestamp":"2026-01-01T00:00:05Z","message":{"id":"m5","model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1},"content":[{"type":"text","text":"Looking."}]}}`
	call := `{"type":"assistant","requestId":"r5","timestamp":"2026-01-01T00:00:06Z","message":{"id":"m5","model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1},"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`
	tests := []struct {
		name  string
		lines []string
		end   func(p *Parser, out []event.Event) []event.Event
	}{
		{"the hook's word", []string{prompt, text}, (*Parser).StopEnded},
		{"the word ahead of the record, then a quiet spell", []string{prompt, text, call}, func(p *Parser, out []event.Event) []event.Event {
			out = p.StopEnded(out) // the call's result not read yet
			if p.Held() {
				t.Error("still held after the hook's word")
			}
			out = append(out, feed(t, p, toolRes, text)...)
			return p.Quiet(out)
		}},
		{"the record's stop hook summary", []string{prompt, text}, func(p *Parser, out []event.Event) []event.Event {
			return append(out, feed(t, p, `{"type":"system","subtype":"stop_hook_summary","hookCount":1,"timestamp":"2026-01-01T00:00:07Z"}`)...)
		}},
		{"the next prompt", []string{prompt, text}, func(p *Parser, out []event.Event) []event.Event {
			return append(out, feed(t, p, prompt)...)
		}},
		{"the backstop", []string{prompt, text}, (*Parser).Backstop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p Parser
			p.HookedStops()
			evs := feed(t, &p, tt.lines...)
			evs = p.Quiet(evs)
			if n, _ := countTurns(evs); n != 0 || !p.Held() {
				t.Fatalf("a quiet spell ended %d turns (held %v)", n, p.Held())
			}
			// The hold survives a restart.
			saved, err := p.Save()
			if err != nil {
				t.Fatal(err)
			}
			q, err := NewParser(saved)
			if err != nil || !q.Held() {
				t.Fatalf("resumed parser held %v (%v)", q.Held(), err)
			}
			evs = tt.end(q, evs)
			if n, _ := countTurns(evs); n != 1 {
				t.Errorf("%d turn_complete events, want 1", n)
			}
		})
	}
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for l := range bytes.SplitSeq(data, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// hookedParser is a Parser told that the hooks call in when hooked.
func hookedParser(hooked bool) *Parser {
	var p Parser
	if hooked {
		p.HookedStops()
	}
	return &p
}
