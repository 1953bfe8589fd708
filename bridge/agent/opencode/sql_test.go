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
