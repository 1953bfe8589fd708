package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/transcript"
)

// parserState returns the state of session sid's parser in workspace id,
// taken in the workspace's goroutine.
func (r *running) parserState(t *testing.T, id, sid string) transcript.State {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var st transcript.State
	found := false
	if !r.eng.do(ctx, id, func(w *workspace) {
		if tl := w.tails[sid]; tl != nil {
			if p, ok := tl.parser.(*transcript.Parser); ok {
				st, found = p.State, true
			}
		}
	}) || !found {
		t.Fatalf("no transcript parser for session %s in workspace %s", sid, id)
	}
	return st
}

// journalLines returns the journal's lines, each as its keys ("e": events,
// "c": the whole mark, "d": a delta).
func journalLines(t *testing.T, h *home) []map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(journalFile(t, h))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("journal line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestAHookWordBeforeABatchSurvivesARestart: a hook's word changes the
// session's parser state with no line of the journal of its own (the
// hooks call in; a Stop hook went on with the turn), then the agent
// writes a line. The batch that reads it must journal the state the word
// made: the bridge restarted from its journal has it. Failed before: that
// batch journaled a delta, and the restart parsed the line again from the
// state before the word (Hooked off; no Stop continuation awaited).
func TestAHookWordBeforeABatchSurvivesARestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, tt := range []struct {
		name string
		word func(r *running, id, sid string)
		has  func(st transcript.State) bool
		want string
	}{
		{"the hooks call in", func(r *running, id, sid string) {
			r.eng.HooksCall(id, Call{SessionID: sid})
			r.eng.do(ctx, id, func(*workspace) {}) // HooksCall's work done
		}, func(st transcript.State) bool { return st.Hooked }, "Hooked"},
		{"a Stop hook went on", func(r *running, id, sid string) {
			if !r.eng.TurnGoesOn(ctx, id, Call{SessionID: sid}) {
				t.Fatal("the Stop hook's call was not taken")
			}
		}, func(st transcript.State) bool { return st.GoesOn == 1 }, "one Stop continuation awaited"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			const sid = "dddddddd-1111-4111-8111-0000000000d1"
			dir, path := h.session("hookjournal", sid)
			h.write(path, prompt(sid, "go on"))
			quiet := func(c *Config) { c.QuietAfter = time.Hour } // no quiet spell changes the state meanwhile
			r := h.startWith(quiet)
			id := r.waitPrompt(t, dir, "go on")
			tt.word(r, id, sid)
			if st := r.parserState(t, id, sid); !tt.has(st) {
				t.Fatalf("the word did not take: want %s", tt.want)
			}
			h.write(path, answer(sid, "m1", "working on it", ""))
			r.collect(t, id, 0, has(event.Assistant, "working on it"))
			r.stop()

			r2 := h.startWith(quiet)
			r2.waitPrompt(t, dir, "go on")
			st := r2.parserState(t, id, sid)
			if !tt.has(st) {
				t.Errorf("restored state lost the hook's word: want %s; hooked %v, goes on %d", tt.want, st.Hooked, st.GoesOn)
			}
			if st.Turn == nil || st.LastText != "working on it" {
				t.Errorf("restored state is not the line's: turn %+v, last text %q", st.Turn, st.LastText)
			}
		})
	}
}

// TestPlainLinesJournalDeltas: a busy hooked session's lines, turn after
// turn, each a batch of its own, journal deltas only once the hooks' word
// is journaled — though lines move the parser's count of changes too (a
// prompt ends the turn its Stop hook held), which must not be taken for a
// hook's word.
func TestPlainLinesJournalDeltas(t *testing.T) {
	const turns = 6
	h := newHome(t)
	const sid = "dddddddd-2222-4222-8222-0000000000d2"
	dir, path := h.session("busylines", sid)
	h.write(path, prompt(sid, "turn 0"))
	r := h.startWith(func(c *Config) { c.QuietAfter = time.Hour })
	id := r.waitPrompt(t, dir, "turn 0")
	r.eng.HooksCall(id, Call{SessionID: sid})
	if st := r.parserState(t, id, sid); !st.Hooked { // after HooksCall's work
		t.Fatal("the hooks' word did not take")
	}
	h.write(path, answer(sid, "m0", "answer 0", "end_turn"))
	evs := r.collect(t, id, 0, has(event.Assistant, "answer 0"))
	from := len(journalLines(t, h)) // the hooks' word is journaled by now

	for i := 1; i <= turns; i++ {
		last := evs[len(evs)-1].ID
		h.write(path, prompt(sid, fmt.Sprintf("turn %d", i)))
		evs = r.collect(t, id, last, has(event.User, fmt.Sprintf("turn %d", i)))
		last = evs[len(evs)-1].ID
		h.write(path, answer(sid, fmt.Sprintf("m%d", i), fmt.Sprintf("answer %d", i), "end_turn"))
		evs = r.collect(t, id, last, has(event.Assistant, fmt.Sprintf("answer %d", i)))
	}
	if n := countTurns(r.collect(t, id, 0, has(event.Assistant, fmt.Sprintf("answer %d", turns))), sid); n != turns {
		t.Fatalf("%d turns ended, want %d (each by the next prompt: the Stop hook held them)", n, turns)
	}
	lines := journalLines(t, h)[from:]
	deltas := 0
	for i, l := range lines {
		if _, ok := l["c"]; ok {
			t.Errorf("journal line %d after the hooks' word is a whole mark", from+i)
		}
		if _, ok := l["d"]; ok {
			deltas++
		}
	}
	if deltas < 2*turns {
		t.Errorf("%d deltas for %d lines, each read alone", deltas, 2*turns)
	}
}
