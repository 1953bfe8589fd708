package conductor

import (
	"context"
	"strings"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
)

// TestResumesWhereItStopped: a bridge that stops mid-turn and starts
// again from its journal (the parser's saved state, and its cursor) gives
// the events one uninterrupted run gives, none twice, none lost — though
// Conductor wrote on in between, and rebuilt the table as its migrations
// rebuild tables, which renumbers the rowids (a table without an INTEGER
// PRIMARY KEY keeps none: VACUUM may renumber them too).
func TestResumesWhereItStopped(t *testing.T) {
	shape := conductordb.Shapes(t)[1]
	first := []any{
		"one", reply("m1", "first", 100, 10), result(0.0016, 700, 100, 10, map[string][2]int{"claude-opus-5-5": {100, 10}}),
		"two", reply("m2", "second, begun", 100, 10),
	}
	second := []any{
		reply("m2", "second, done", 100, 10), result(0.0040, 500, 100, 10, map[string][2]int{"claude-opus-5-5": {200, 20}}),
		"three", reply("m3", "third", 1, 1), result(0.0041, 100, 1, 1, map[string][2]int{"claude-opus-5-5": {201, 21}}),
	}

	// One run that never stops.
	w := newDB(t, shape, "s-tab", "cursor")
	rec := newRecorder()
	rec.run(t, w.Path, map[string]Cursor{"s-tab": {}})
	write(t, w, "s-tab", append(append([]any{}, first...), second...)...)
	want := describe(rec.turns(t, "s-tab", 3))

	// A run stopped after the first rows, resumed after more were
	// written, other tabs' rows deleted and the file vacuumed.
	w2 := newDB(t, shape, "s-tab", "cursor", "s-old", "claude")
	write(t, w2, "s-old", "a", "b", "c", "d")
	write(t, w2, "s-tab", first...)
	rec1 := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	f := NewFollower(w2.Path, Options{Deliver: rec1.deliver, Logf: t.Logf})
	f.Follow("s-tab", Cursor{})
	done := make(chan struct{})
	go func() { defer close(done); f.Run(ctx) }()
	before := rec1.wait(t, "s-tab", func(evs []event.Event) bool { return count(evs, event.Assistant) == 2 })
	cancel()
	<-done
	rec1.mu.Lock()
	saved, err := rec1.parsers["s-tab"].Save()
	at := rec1.parsers["s-tab"].Cursor()
	rec1.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Exec("DELETE FROM session_messages WHERE session_id = 's-old'"); err != nil {
		t.Fatal(err)
	}
	if err := w2.Exec(rebuild); err != nil {
		t.Fatal(err)
	}
	if n := rowidOf(t, w2, at.Key); n >= at.Row {
		t.Fatalf("the rebuild left the last row read at rowid %d (was %d): the test proves nothing", n, at.Row)
	}
	write(t, w2, "s-tab", second...)

	p, err := NewParser(saved)
	if err != nil {
		t.Fatal(err)
	}
	rec2 := newRecorder()
	rec2.parsers["s-tab"] = p
	rec2.run(t, w2.Path, map[string]Cursor{"s-tab": at})
	after := rec2.turns(t, "s-tab", 2)
	if got := describe(before) + describe(after); got != want {
		t.Errorf("stopped and resumed:\n%s\none run:\n%s", got, want)
	}
	if n := strings.Count(describe(after), "second, begun"); n != 0 {
		t.Errorf("a row read before the stop was handed over again")
	}
}

// TestFollowsATabLaterAndLetsOneGo: a tab followed while others are
// followed is caught up from its cursor; an unfollowed tab gets nothing
// more.
func TestFollowsATabLaterAndLetsOneGo(t *testing.T) {
	w := newDB(t, conductordb.Shapes(t)[0], "s-a", "cursor", "s-b", "acp")
	rec := newRecorder()
	f := rec.run(t, w.Path, map[string]Cursor{"s-a": {}})
	write(t, w, "s-b", "early b")
	write(t, w, "s-a", "first a")
	rec.wait(t, "s-a", func(evs []event.Event) bool { return len(evs) == 1 })
	f.Follow("s-b", Cursor{})
	rec.wait(t, "s-b", func(evs []event.Event) bool { return len(evs) == 1 })
	f.Unfollow("s-a")
	write(t, w, "s-a", "unheard a")
	write(t, w, "s-b", "later b")
	got := describe(rec.wait(t, "s-b", func(evs []event.Event) bool { return len(evs) == 2 }))
	if want := "user \"early b\" cut=false\nuser \"later b\" cut=false\n"; got != want {
		t.Errorf("s-b:\n got %s\nwant %s", got, want)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if got := describe(rec.events["s-a"]); got != "user \"first a\" cut=false\n" {
		t.Errorf("s-a after it was let go:\n%s", got)
	}
}

func rowidOf(t *testing.T, w *conductordb.Writer, key string) int64 {
	t.Helper()
	r, err := w.Query("SELECT rowid FROM session_messages WHERE id = ?", key)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rebuild remakes session_messages as a migration that rebuilds a table
// does: its rows keep their order and get new rowids, 1 on.
const rebuild = `BEGIN;
CREATE TABLE session_messages_new AS SELECT * FROM session_messages ORDER BY rowid;
DROP TABLE session_messages;
ALTER TABLE session_messages_new RENAME TO session_messages;
COMMIT;`

// TestFollowsThroughARebuild: rows deleted and the table rebuilt while
// the follower runs (rowids move down under it): it finds its place again
// by the last row's id, and hands over what follows, once.
func TestFollowsThroughARebuild(t *testing.T) {
	w := newDB(t, conductordb.Shapes(t)[0], "s-a", "cursor", "s-old", "claude")
	rec := newRecorder()
	rec.run(t, w.Path, map[string]Cursor{"s-a": {}})
	write(t, w, "s-old", "x", "y", "z")
	write(t, w, "s-a", "one", "two")
	rec.wait(t, "s-a", func(evs []event.Event) bool { return len(evs) == 2 })
	for _, q := range []string{"DELETE FROM session_messages WHERE session_id = 's-old'", rebuild} {
		if err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	write(t, w, "s-a", "three")
	got := describe(rec.wait(t, "s-a", func(evs []event.Event) bool { return len(evs) >= 3 }))
	if want := "user \"one\" cut=false\nuser \"two\" cut=false\nuser \"three\" cut=false\n"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}
