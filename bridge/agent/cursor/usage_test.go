package cursor_test

import (
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
	"conductorbridge/testkit/cursortest"
)

// TestHistoryCountsEveryStoresRuns: usage finds each folder's store under
// ~/.cursor/projects and counts each run that ended as a turn of its
// agent, in its workspace, and a run still open as the streams end it
// (interrupted, with the usage it reported).
func TestHistoryCountsEveryStoresRuns(t *testing.T) {
	home := t.TempDir()
	research := func(name string) string { return filepath.Join("testdata", "research", name+".sql") }
	cursortest.LoadStore(t, research("tool"), filepath.Join(cursor.StoreDir(home, "/tmp/cursorsdk/ws"), cursor.DBName))
	cursortest.LoadStore(t, research("error-unimplemented"), filepath.Join(cursor.StoreDir(home, "/tmp/failed"), cursor.DBName))
	// A run cut off after its usage event: its FINISHED status never
	// written, its run row still RUNNING.
	open := cursortest.LoadStore(t, research("finished"), filepath.Join(cursor.StoreDir(home, "/tmp/open"), cursor.DBName))
	for _, q := range []string{"DELETE FROM run_events WHERE seq = 5", "UPDATE runs SET status = 'RUNNING', usage_json = NULL, finished_at = NULL"} {
		if _, err := open.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	h := cursor.NewHistory(home)
	groups, err := h.UsageGroups()
	if err != nil || len(groups) != 3 {
		t.Fatalf("groups %+v (%v), want the three stores", groups, err)
	}
	at := func(s string) time.Time {
		ts, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	// From the recorded stores: the workspace_ref, agent_id, and the
	// status event's time less started_at..finished_at (or, for a failed
	// run, started_at).
	want := map[string]driver.Turn{
		"agent-672041a6-889e-4d0c-b9bf-af813a1687d4": {Start: at("2026-12-07T04:02:23.91Z"), End: at("2026-12-07T04:02:24.75Z"),
			Usage: event.Usage{InputTokens: 11, OutputTokens: 7}},
		"agent-a183127b-34da-4a81-a5ae-9288f1c18d98": {Start: at("2026-12-07T03:58:07.502Z"), End: at("2026-12-07T03:58:24.205Z"), CostKnown: true},
		// Ended where its last event was (the usage event, 04:02:13.788).
		"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7": {Start: at("2026-12-07T04:02:13.169Z"), End: at("2026-12-07T04:02:13.788Z"),
			Usage: event.Usage{InputTokens: 11, OutputTokens: 7}},
	}
	seen := 0
	for _, g := range groups {
		turns, err := h.ReadUsage(g, price.Embedded(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tu := range turns {
			w, ok := want[tu.Session]
			if !ok || len(turns) != 1 {
				t.Errorf("turns %+v", turns)
				continue
			}
			seen++
			if tu.Agent != "cursor" || tu.Workspace != "/tmp/cursorsdk/ws" || tu.Model != "auto" || tu.Usage != w.Usage ||
				tu.CostKnown != w.CostKnown || !tu.Start.Equal(w.Start) || !tu.End.Equal(w.End) {
				t.Errorf("turn %+v, want %+v in /tmp/cursorsdk/ws", tu, w)
			}
		}
	}
	if seen != 3 {
		t.Errorf("%d turns counted, want 3", seen)
	}
}
