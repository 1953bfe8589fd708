package cursor_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/testkit/cursortest"
)

var update = flag.Bool("update", false, "rewrite testdata/corpus and testdata/failed from testdata/research")

// loadDump makes a store database in a temporary folder from a recorded
// dump (cursortest.LoadStore), and returns its path and a writable
// connection (the SDK's side).
func loadDump(t *testing.T, dump string) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), cursor.DBName)
	return path, cursortest.LoadStore(t, dump, path)
}

// readAll reads every row of the store's one agent, in the pages of
// limit rows a reader would.
func readAll(t *testing.T, st *cursor.Store, limit int) (string, []cursor.Row) {
	t.Helper()
	ctx := context.Background()
	agents, err := st.Agents(ctx)
	if err != nil || len(agents) != 1 {
		t.Fatalf("agents %+v, %v: want the run's one", agents, err)
	}
	var all []cursor.Row
	var mark cursor.Mark
	for {
		rows, err := st.Rows(ctx, agents[0].ID, mark, limit)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, rows...)
		if len(rows) < limit {
			return agents[0].ID, all
		}
		mark = cursor.Mark{Turn: rows[len(rows)-1].Turn, Seq: rows[len(rows)-1].Seq}
	}
}

// TestCorpusIsTheStoresRows: the corpus the parser is tested on is what
// Store reads from the recorded stores, a page at a time.
func TestCorpusIsTheStoresRows(t *testing.T) {
	dumps, err := filepath.Glob(filepath.Join("testdata", "research", "*.sql"))
	if err != nil || len(dumps) < 4 {
		t.Fatalf("research dumps missing: %v %v", dumps, err)
	}
	for _, dump := range dumps {
		name := strings.TrimSuffix(filepath.Base(dump), ".sql")
		t.Run(name, func(t *testing.T) {
			path, _ := loadDump(t, dump)
			st := cursor.NewStore(path)
			defer st.Close()
			_, rows := readAll(t, st, 2)
			var b []byte
			for i := range rows {
				b = append(rows[i].AppendLine(b), '\n')
			}
			dir := "corpus"
			if strings.HasPrefix(name, "error-") {
				dir = "failed"
			}
			file := filepath.Join("testdata", dir, name+".jsonl")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != string(want) {
				t.Errorf("Store reads\n%s\nthe corpus %s holds\n%s", b, file, want)
			}
		})
	}
}

// TestRowsByTurnAfterTheMark: an agent's rows come run by run in turn
// order (not by run id, which is random), each run's by seq, from the row
// after the mark; another agent's rows never.
func TestRowsByTurnAfterTheMark(t *testing.T) {
	path, db := loadDump(t, filepath.Join("testdata", "research", "tool.sql"))
	const agentID = "agent-672041a6-889e-4d0c-b9bf-af813a1687d4" // the recorded run's
	// A second run whose id sorts before the first's, and another agent's.
	for _, q := range []string{
		`INSERT INTO runs (run_id, agent_id, turn_number, status, created_at, updated_at) VALUES ('run-0', '` + agentID + `', 2, 'RUNNING', '2026-12-07T05:00:00Z', '2026-12-07T05:00:00Z')`,
		`INSERT INTO run_events (run_id, seq, offset, event_type, payload_json, created_at) VALUES ('run-0', 1, '1', 'run_stream_event', '{}', '2026-12-07T05:00:00Z'), ('run-0', 2, '2', 'run_stream_event', NULL, '2026-12-07T05:00:01Z')`,
		`INSERT INTO agents (agent_id, workspace_ref, status, metadata_json, created_at, updated_at) VALUES ('agent-other', '/x', 'IDLE', '{}', '2026-12-07T05:00:00Z', '2026-12-07T05:00:00Z')`,
		`INSERT INTO runs (run_id, agent_id, turn_number, status, created_at, updated_at) VALUES ('run-1', 'agent-other', 1, 'RUNNING', '2026-12-07T05:00:00Z', '2026-12-07T05:00:00Z')`,
		`INSERT INTO run_events (run_id, seq, offset, event_type, payload_json, created_at) VALUES ('run-1', 1, '1', 'run_stream_event', '{}', '2026-12-07T05:00:00Z')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st := cursor.NewStore(path)
	defer st.Close()
	cases := []struct {
		after cursor.Mark
		limit int
		want  string
	}{
		{cursor.Mark{}, 0, "1/1 1/2 1/3 1/4 1/5 1/6 1/7 2/1 2/2"},
		{cursor.Mark{Turn: 1, Seq: 5}, 0, "1/6 1/7 2/1 2/2"},
		{cursor.Mark{Turn: 1, Seq: 7}, 0, "2/1 2/2"},
		{cursor.Mark{Turn: 2, Seq: 2}, 0, ""},
		{cursor.Mark{}, 3, "1/1 1/2 1/3"},
	}
	for _, c := range cases {
		rows, err := st.Rows(context.Background(), agentID, c.after, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%d/%d", r.Turn, r.Seq))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("after %+v (limit %d): %v, want %s", c.after, c.limit, got, c.want)
		}
	}
}

// TestReadingNeverHoldsTheWriter: with the store's connection open and
// read from, the SDK's side commits at once (no busy wait: busy_timeout
// 0), and the next read sees its row; data_version says it committed.
func TestReadingNeverHoldsTheWriter(t *testing.T) {
	path, db := loadDump(t, filepath.Join("testdata", "research", "finished.sql"))
	if _, err := db.Exec("PRAGMA busy_timeout=0"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := cursor.NewStore(path)
	defer st.Close()
	agentID, rows := readAll(t, st, 512)
	v0, _, err := st.DataVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := rows[len(rows)-1]
	_, err = db.Exec(`INSERT INTO run_events (run_id, seq, offset, event_type, payload_json, created_at) VALUES (?, ?, ?, 'run_stream_event', '{}', '2026-12-07T05:00:00Z')`,
		last.Run, last.Seq+1, fmt.Sprint(last.Seq+1))
	if err != nil {
		t.Fatalf("the writer could not commit beside the reader: %v", err)
	}
	v1, _, err := st.DataVersion(ctx)
	if err != nil || v1 == v0 {
		t.Errorf("data_version %d then %d (%v): the commit went unseen", v0, v1, err)
	}
	more, err := st.Rows(ctx, agentID, cursor.Mark{Turn: last.Turn, Seq: last.Seq}, 0)
	if err != nil || len(more) != 1 || more[0].Seq != last.Seq+1 {
		t.Fatalf("after the mark: %+v (%v), want the new row", more, err)
	}
	if _, err := db.Exec(`UPDATE agents SET status = 'RUNNING'`); err != nil {
		t.Fatalf("the writer could not commit after the read: %v", err)
	}
}

// TestStoreDir: where the SDK put the recorded stores for the workspace
// /tmp/cursorsdk/ws (its .cursor/projects/… folders).
func TestStoreDir(t *testing.T) {
	got := cursor.StoreDir("/home/u", "/tmp/cursorsdk/ws")
	want := "/home/u/.cursor/projects/tmp-cursorsdk-ws/sdk-agent-store/8080b7425d5cc1c144d672895e03e169"
	if filepath.ToSlash(got) != want {
		t.Errorf("StoreDir = %s, want %s", got, want)
	}
	// Runs of other characters are one dash, none at the ends.
	if got := filepath.Base(filepath.Dir(filepath.Dir(cursor.StoreDir("/h", "/Users/a b/--x.y/")))); got != "Users-a-b-x-y" {
		t.Errorf("slug %s, want Users-a-b-x-y", got)
	}
}
