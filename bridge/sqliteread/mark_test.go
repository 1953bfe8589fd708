package sqliteread

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"

	"conductorbridge/testkit/sqlrows"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// TestMarkOfIsTheLastRowAndTheCount: MarkOf is the table's last rowid,
// its row count, the last row's key and the schema's version, an empty
// table's included, and Holds holds of it until a row up to it goes.
func TestMarkOfIsTheLastRowAndTheCount(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string) {
		t.Helper()
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	exec("CREATE TABLE t (id TEXT PRIMARY KEY, tab TEXT)")
	exec("CREATE INDEX t_tab ON t (tab)")
	var schema int64
	if err := db.QueryRow("PRAGMA schema_version").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		sql  string
		want Mark
	}{
		{"empty", "", Mark{Schema: schema}},
		{"three rows", "INSERT INTO t VALUES ('a', 'x'), ('b', 'y'), ('c', 'x')", Mark{Schema: schema, Rowid: 3, Count: 3, Key: "c"}},
		{"a row in the middle gone", "DELETE FROM t WHERE id = 'b'", Mark{Schema: schema, Rowid: 3, Count: 2, Key: "c"}},
	} {
		if c.sql != "" {
			exec(c.sql)
		}
		m, err := MarkOf(ctx, db, "t", "id")
		if err != nil {
			t.Fatal(err)
		}
		if m != c.want {
			t.Errorf("%s: MarkOf = %+v, want %+v", c.name, m, c.want)
		}
		if ok, err := m.Holds(ctx, db, "t", "id"); err != nil || !ok {
			t.Errorf("%s: Holds of its own mark = %v, %v", c.name, ok, err)
		}
	}
	m, err := MarkOf(ctx, db, "t", "id")
	if err != nil {
		t.Fatal(err)
	}
	exec("INSERT INTO t VALUES ('d', 'y')")
	if ok, err := m.Holds(ctx, db, "t", "id"); err != nil || !ok {
		t.Errorf("a row added: Holds = %v, %v", ok, err)
	}
	exec("DELETE FROM t WHERE id = 'a'")
	if ok, err := m.Holds(ctx, db, "t", "id"); err != nil || ok {
		t.Errorf("a row up to the mark gone: Holds = %v, %v", ok, err)
	}
}

// TestMarkOfStepsThroughNoRow: MarkOf, asked at every warm read, counts
// the rows with SQLite's count of the b-tree's entries and takes the
// last from its end: its program (EXPLAIN) has a Count and no Next, the
// step from one row to the next of a walk through them all.
func TestMarkOfStepsThroughNoRow(t *testing.T) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE TABLE t (id TEXT PRIMARY KEY, tab TEXT)", "CREATE INDEX t_tab ON t (tab)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	_, program, err := sqlrows.All(db, "EXPLAIN "+markQuery("t", "id"))
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, op := range program {
		ops = append(ops, asString(op[1])) // addr, opcode, p1, …
	}
	if !slices.Contains(ops, "Count") || slices.Contains(ops, "Next") {
		t.Errorf("MarkOf's program %q: want a Count and no Next", ops)
	}
}

func asString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	}
	return ""
}
