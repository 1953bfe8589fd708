package conductor

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent"
)

// TestRowChangesNamesTheTabsThatGainedRows: after a first call (which
// cannot tell), each call names the records (as a tab's RowRecord names
// itself) of the tabs that gained rows since the call before, and says
// "all" when it cannot tell: a commit that added no row, rows deleted from
// the table's end.
func TestRowChangesNamesTheTabsThatGainedRows(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			ctx := context.Background()
			w := newDB(t, shape, "s-a", "cursor", "s-b", "cursor", "s-c", "cursor")
			write(t, w, "s-a", "before")
			a := Agent{DB: w.Path}
			ch := a.RowChanges(w.Path)
			defer ch.Close()
			name := func(tab string) string {
				rec, err := a.FindRows(ctx, agent.RowSession{ID: tab, Tab: tab})
				if err != nil || rec == nil {
					t.Fatalf("FindRows %s: %v %v", tab, rec, err)
				}
				defer rec.Close()
				return rec.Name()
			}
			since := func(want []string, wantAll bool) {
				t.Helper()
				names, all, err := ch.Since(ctx)
				if err != nil {
					t.Fatal(err)
				}
				slices.Sort(names)
				if all != wantAll || !slices.Equal(names, want) {
					t.Fatalf("Since = %q all=%v, want %q all=%v", names, all, want, wantAll)
				}
			}
			since(nil, true) // the first call
			write(t, w, "s-a", "one")
			since([]string{name("s-a")}, false)
			write(t, w, "s-b", "two", "three")
			write(t, w, "s-c", "four")
			since([]string{name("s-b"), name("s-c")}, false)
			since(nil, true) // nothing added (another table's commit looks so)
			write(t, w, "s-b", "five")
			if err := w.Exec("DELETE FROM session_messages WHERE rowid = (SELECT MAX(rowid) FROM session_messages)"); err != nil {
				t.Fatal(err)
			}
			since(nil, true)          // the table's end went back
			write(t, w, "s-a", "six") // may take the deleted row's rowid
			since([]string{name("s-a")}, false)
		})
	}
}

// TestRowChangesReadsOnlyTheNewRows: the question asked at every commit
// (which tabs gained rows) reads the rows after the mark by their rowid,
// in both shapes of the table, rather than scanning it or one of its
// indexes: SQLite's plan for it has no SCAN step. Grouped by session_id,
// it was read whole through the index on session_id, every commit.
func TestRowChangesReadsOnlyTheNewRows(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			w := newDB(t, shape, "s-a", "cursor")
			for _, step := range queryPlan(t, w.Path, changedTabs, 1) {
				if strings.HasPrefix(step, "SCAN") {
					t.Errorf("plan step %q scans", step)
				}
			}
		})
	}
}

// queryPlan is SQLite's plan for q on the database at path, a step a line.
func queryPlan(t *testing.T, path, q string, args ...any) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(plan) == 0 {
		t.Fatal("no plan")
	}
	return plan
}
