package cursor_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/cursortest"
)

// TestAFoldersAgentIsFoundAndRead: an SDK agent run in a plain folder is
// listed while its store was updated recently, found by its id and
// folder, and read through its record from its parser's mark on; a
// Conductor tab, or an id no store holds, has no record here.
func TestAFoldersAgentIsFoundAndRead(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	const agentID = "agent-672041a6-889e-4d0c-b9bf-af813a1687d4" // tool.sql's
	db := cursortest.LoadStore(t, filepath.Join("testdata", "research", "tool.sql"), filepath.Join(cursor.StoreDir(home, work), cursor.DBName))
	if _, err := db.Exec("UPDATE agents SET workspace_ref = ?, updated_at = '2026-12-07T04:02:24.751Z'", work); err != nil {
		t.Fatal(err)
	}
	d := cursor.NewDriver(home)
	list := func(since time.Time) []string {
		var got []string
		if err := d.Runs(since, func(dir, id, record string) { got = append(got, dir+" "+id) }); err != nil {
			t.Fatal(err)
		}
		return got
	}
	updated := time.Date(2026, 12, 7, 4, 2, 24, 751e6, time.UTC)
	if got := list(updated.Add(-time.Minute)); len(got) != 1 || got[0] != work+" "+agentID {
		t.Errorf("runs since before the update: %q, want the agent in %s", got, work)
	}
	if got := list(updated.Add(time.Minute)); len(got) != 0 {
		t.Errorf("runs since after the update: %q, want none", got)
	}
	ctx := context.Background()
	for _, s := range []agent.RowSession{
		{ID: agentID, Tab: "s-1", Agent: "cursor", Dir: work},
		{ID: "agent-other", Agent: "cursor", Dir: work},
		{ID: agentID, Agent: "cursor", Dir: t.TempDir()},
	} {
		if rec, err := d.FindRows(ctx, s); rec != nil || err != nil {
			t.Errorf("%+v: record %v (%v), want none", s, rec, err)
		}
	}
	rec, err := d.FindRows(ctx, agent.RowSession{ID: agentID, Agent: "cursor", Dir: work})
	if err != nil || rec == nil {
		t.Fatalf("no record of the folder's agent (%v)", err)
	}
	defer rec.Close()
	p, err := d.NewParser(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var evs []event.Event
	read := func(limit int) bool {
		more, err := rec.Read(ctx, p, limit, func(line []byte) {
			if evs, err = p.Line(line, evs); err != nil {
				t.Fatal(err)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return more
	}
	for read(3) { // pages of 3 rows, each after the parser's mark
	}
	if len(evs) != 4 || evs[3].Type != event.TurnComplete || p.InTurn() {
		t.Fatalf("events %+v: want the answer, the call, its result and the end", evs)
	}
	if read(3) || len(evs) != 4 {
		t.Errorf("a read after the last row gave more: %+v", evs)
	}
}
