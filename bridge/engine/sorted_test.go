package engine

import (
	"conductorbridge/bridge/transcript"
	"slices"
	"testing"
)

// sorted gives the tails by session id; one session's comes without an
// allocation, and a tail let go is not held on to by the slice reused.
func TestSortedTails(t *testing.T) {
	tails := func(ids ...string) map[string]*tail {
		m := make(map[string]*tail, len(ids))
		for _, id := range ids {
			m[id] = &tail{id: id}
		}
		return m
	}
	for _, tt := range []struct {
		name string
		ids  []string
		want []string
	}{
		{"none", nil, nil},
		{"one", []string{"b"}, []string{"b"}},
		{"three", []string{"c", "a", "b"}, []string{"a", "b", "c"}},
	} {
		w := &workspace{tails: tails(tt.ids...)}
		var got []string
		for _, tl := range w.sorted() {
			got = append(got, tl.id)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: sorted %v, want %v", tt.name, got, tt.want)
		}
	}

	w := &workspace{tails: tails("a")}
	if n := testing.AllocsPerRun(100, func() { w.sorted() }); n != 0 {
		t.Errorf("sorted allocates %v times for one session, want 0", n)
	}
	delete(w.tails, "a")
	w.tails["b"], w.tails["c"] = &tail{id: "b"}, &tail{id: "c"}
	w.sorted()
	if w.one[0] != nil {
		t.Errorf("sorted of two sessions still holds %q", w.one[0].id)
	}
}

// The one session's tail held between lines (onlyTail) is let go when
// the session is replaced, by another or by a new tail of its own id:
// each is then the one sorted, working and unlisted see.
func TestOnlyTailFollowsTheSession(t *testing.T) {
	a := &tail{id: "a", parser: &transcript.Parser{}}
	w := &workspace{tails: map[string]*tail{"a": a}}
	w.snap.Store(&snapshot{sessions: []SessionInfo{{SessionID: "a", Streamed: true}}})
	check := func(step string, want *tail, unlisted bool) {
		t.Helper()
		if got := w.sorted(); len(got) != 1 || got[0] != want {
			t.Errorf("%s: sorted %v, want the tail of %s", step, got, want.id)
		}
		if got := w.unlisted(); got != unlisted {
			t.Errorf("%s: unlisted %v, want %v", step, got, unlisted)
		}
	}
	check("first", a, false)
	if n := testing.AllocsPerRun(100, func() { w.sorted(); w.working(); w.unlisted() }); n != 0 {
		t.Errorf("sorted, working and unlisted allocate %v times for one session, want 0", n)
	}
	a2 := &tail{id: "a", parser: &transcript.Parser{}}
	w.tails["a"] = a2
	check("a new tail of the same session", a2, false)
	delete(w.tails, "a")
	b := &tail{id: "b", parser: &transcript.Parser{}}
	w.tails["b"] = b
	check("another session", b, true)

	// working counts the one session's open turn, then none.
	if _, err := b.parser.Line([]byte(`{"type":"user","sessionId":"b","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`), nil); err != nil {
		t.Fatal(err)
	}
	if n := w.working(); n != 1 {
		t.Errorf("working %d with the one session's turn open, want 1", n)
	}
	w.tails["b"] = &tail{id: "b", parser: &transcript.Parser{}}
	if n := w.working(); n != 0 {
		t.Errorf("working %d once the session's tail is a new one, idle, want 0", n)
	}
}
