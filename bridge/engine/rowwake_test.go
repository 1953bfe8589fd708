package engine

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/conductor"
)

// TestRowCommitWakesOnlyItsTabsReaders: a commit to one tab's rows wakes
// the workspace reading that tab, not every workspace reading the
// database; a commit the database cannot place wakes all of them.
func TestRowCommitWakesOnlyItsTabsReaders(t *testing.T) {
	shape := conductordb.Shapes(t)[0]
	db := filepath.Join(t.TempDir(), "conductor.db")
	wr, err := conductordb.Create(db, shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	defer wr.Close()
	for _, tab := range []string{"s-a", "s-b"} {
		if err := wr.AddTab(shape, "w-"+tab, tab, "cursor", tab); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	stopped, cancel := context.WithCancel(ctx)
	cancel() // no watcher goroutine runs: the test asks as it would
	e := &Engine{ctx: stopped, log: zerolog.Nop()}
	src := conductor.Agent{DB: db}
	wa, wb := &workspace{id: "w-a"}, &workspace{id: "w-b"}
	recs := map[*workspace]agent.RowRecord{}
	for w, tab := range map[*workspace]string{wa: "s-a", wb: "s-b"} {
		rec, err := src.FindRows(ctx, agent.RowSession{ID: tab, Tab: tab})
		if err != nil || rec == nil {
			t.Fatalf("FindRows %s: %v %v", tab, rec, err)
		}
		defer rec.Close()
		recs[w] = rec
		e.followRows(w, src, rec)
	}
	dbPath := recs[wa].DB()
	ch := src.RowChanges(dbPath)
	defer ch.Close()
	woken := func() []string {
		t.Helper()
		names, all, err := ch.Since(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, w := range e.rowReaders(dbPath, names, all) {
			ids = append(ids, w.id)
		}
		slices.Sort(ids)
		return ids
	}
	check := func(what string, want ...string) {
		t.Helper()
		if got := woken(); !slices.Equal(got, want) {
			t.Errorf("%s woke %q, want %q", what, got, want)
		}
	}
	check("the first look", "w-a", "w-b")
	if _, err := wr.Message("s-b", "user", "hello"); err != nil {
		t.Fatal(err)
	}
	check("a row of s-b", "w-b")
	if _, err := wr.Message("s-a", "user", "hi"); err != nil {
		t.Fatal(err)
	}
	if _, err := wr.Message("s-b", "user", "again"); err != nil {
		t.Fatal(err)
	}
	check("rows of both", "w-a", "w-b")
	e.unfollowRows(wb, recs[wb])
	if _, err := wr.Message("s-b", "user", "nobody reads it"); err != nil {
		t.Fatal(err)
	}
	check("a row of a tab nobody reads")
	check("a commit that added no row", "w-a")
}
