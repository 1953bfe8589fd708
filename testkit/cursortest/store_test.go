package cursortest

import (
	"database/sql"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDumpRoundTripsAndBlanksTheKey(t *testing.T) {
	dir := t.TempDir()
	src, err := sql.Open("sqlite", filepath.Join(dir, "src.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	const secret = "k3y-that-must-not-leak"
	_, err = src.Exec(`
		CREATE TABLE agents (agent_id TEXT PRIMARY KEY, metadata_json TEXT NOT NULL DEFAULT '{}', name TEXT);
		CREATE TABLE runs (run_id TEXT, turn_number INTEGER, cost REAL, raw BLOB, note TEXT);
		CREATE INDEX runs_turn ON runs (turn_number);
		INSERT INTO agents VALUES ('agent-1', '{"encryptionKey":"` + secret + `"}', 'it''s mine');
		INSERT INTO runs VALUES ('run-1', 2, 0.25, x'00ff10', NULL);
		INSERT INTO runs VALUES ('run-2', -7, 1e-9, NULL, 'two' || char(10) || 'lines');`)
	if err != nil {
		t.Fatal(err)
	}
	schema, dump, err := Dump(src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(dump, "CREATE") {
		t.Errorf("the rows' dump carries the schema, not rows only:\n%s", dump)
	}
	if strings.Contains(dump, secret) {
		t.Fatalf("the dump carries metadata_json's key:\n%s", dump)
	}

	// As the recorder writes it and the reader's tests load it.
	path, err := writeRecording(filepath.Join(dir, "sdk-"+SDKVersion), schema, dump)
	if err != nil {
		t.Fatal(err)
	}
	dst := LoadStore(t, path, filepath.Join(dir, "dst.db"))
	if _, err := dst.Exec(`SELECT 1 FROM runs INDEXED BY runs_turn WHERE turn_number = 2`); err != nil {
		t.Errorf("the index did not come back: %v", err)
	}
	want := map[string][]Row{
		"agents": {{"agent_id": "agent-1", "metadata_json": "{}", "name": "it's mine"}},
		"runs": {
			{"run_id": "run-1", "turn_number": int64(2), "cost": 0.25, "raw": []byte{0, 0xff, 0x10}, "note": nil},
			{"run_id": "run-2", "turn_number": int64(-7), "cost": 1e-9, "raw": nil, "note": "two\nlines"},
		},
	}
	for table, rows := range want {
		got, err := Rows(dst, table)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, rows) {
			t.Errorf("%s after the round trip = %#v, want %#v", table, got, rows)
		}
	}
}
