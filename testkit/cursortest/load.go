package cursortest

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// SchemaFile is the name of the file, in a recording's folder
// (bridge/agent/cursor/testdata/sdk-<SDKVersion>), that holds the schema
// the SDK made its store with; the recorded dumps hold rows only.
const SchemaFile = "schema.sql"

// SchemaPath is the schema the dump at dump is run after: the file of
// the recording of SDKVersion, in the folder beside the dump's own
// (testdata/research/x.sql and testdata/sdk-<SDKVersion>/index.sql both
// load testdata/sdk-<SDKVersion>/schema.sql).
func SchemaPath(dump string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(dump)), "sdk-"+SDKVersion, SchemaFile)
}

// LoadStore makes a store database at path (its folder made) from a
// recorded dump: the SDK's schema (SchemaPath) then the dump's rows, in
// WAL mode as the SDK keeps it. It returns a writable connection (the
// SDK's side), closed when the test ends.
func LoadStore(t testing.TB, dump, path string) *sql.DB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{SchemaPath(dump), dump} {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(string(text)); err != nil {
			t.Fatalf("load %s: %v", file, err)
		}
	}
	return db
}
