package opencode_test

import (
	"database/sql"
	"testing"
)

// sqlRow queries the database read-only, apart from the code under test.
func sqlRow(t *testing.T, path, query string, args ...any) func(dest ...any) error {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return func(dest ...any) error { return db.QueryRow(query, args...).Scan(dest...) }
}

// sqlRows returns the one text column of a query's rows.
func sqlRows(t *testing.T, path, query string, args ...any) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rs, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}
