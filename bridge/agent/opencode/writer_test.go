package opencode_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writer stands in for OpenCode on a database made from the schema the
// real binary created (testdata/schema.sql), in WAL mode as OpenCode's
// is, and commits event rows one at a time as OpenCode does: the
// session's sequence and its event in one transaction. It never waits for
// a lock (busy_timeout 0): a reader that held one would fail its commit.
type writer struct {
	db   *sql.DB
	path string
}

func newWriter(t testing.TB) *writer {
	t.Helper()
	path := filepath.Join(t.TempDir(), "opencode.db")
	schema, err := os.ReadFile(filepath.Join("testdata", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(string(schema)); err != nil {
		t.Fatal(err)
	}
	return &writer{db: db, path: path}
}

// commit writes one corpus line (Row.Line) as session's row.
func (w *writer) commit(ctx context.Context, session string, line []byte) error {
	var r struct {
		Seq  int64           `json:"seq"`
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO event_sequence (aggregate_id, seq) VALUES (?, ?)
		ON CONFLICT (aggregate_id) DO UPDATE SET seq = excluded.seq`, session, r.Seq); err != nil {
		return err
	}
	if _, err := tx.Exec("INSERT INTO event (id, aggregate_id, seq, type, data) VALUES (?, ?, ?, ?, ?)",
		fmt.Sprintf("evt_%s_%d", session, r.Seq), session, r.Seq, r.Type, string(r.Data)); err != nil {
		return err
	}
	return tx.Commit()
}

// session inserts a session row as OpenCode's session table holds one.
func (w *writer) session(id, dir, parent string, updated int64) error {
	var p any
	if parent != "" {
		p = parent
	}
	_, err := w.db.Exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
		VALUES (?, 'global', ?, 'slug', ?, 'title of '||?, '1.18.33', ?, ?)`, id, p, dir, id, updated-1000, updated)
	return err
}
