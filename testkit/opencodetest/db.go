package opencodetest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// DB stands in for OpenCode on a database made from the schema the real
// binary created (bridge/agent/opencode/testdata/schema.sql), in WAL mode
// as OpenCode's is, committing event rows as OpenCode does: a session's
// sequence and its event in one transaction. It never waits for a lock
// (busy_timeout 0): a reader that held one would fail its commit.
type DB struct {
	Path string
	SQL  *sql.DB // one connection
}

// NewDB makes the database at path from the schema file.
func NewDB(t testing.TB, path, schema string) *DB {
	t.Helper()
	ddl, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(string(ddl)); err != nil {
		t.Fatal(err)
	}
	return &DB{Path: path, SQL: db}
}

// Commit writes rows (opencode.Row.Line's, as a corpus holds them), each
// in its own transaction as its session's (the id its data names), with
// every mention of the session id from made to (both "": as they are).
func (d *DB) Commit(t testing.TB, from, to string, rows [][]byte) {
	t.Helper()
	for _, line := range rows {
		if from != "" && to != "" {
			line = bytes.ReplaceAll(line, []byte(from), []byte(to))
		}
		var r struct {
			Data struct {
				SessionID string `json:"sessionID"` // every event's data names its session
			} `json:"data"`
		}
		if err := json.Unmarshal(line, &r); err != nil || r.Data.SessionID == "" {
			t.Fatalf("opencodetest: a row naming no session (%v): %s", err, line)
		}
		if err := d.CommitLine(context.Background(), r.Data.SessionID, line); err != nil {
			t.Fatal(err)
		}
	}
}

// CommitLine writes one corpus line as session's row, in one transaction.
func (d *DB) CommitLine(ctx context.Context, session string, line []byte) error {
	var r struct {
		Seq  int64           `json:"seq"`
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return err
	}
	tx, err := d.SQL.BeginTx(ctx, nil)
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

// Checkpoint copies the WAL into the database and empties it, as SQLite
// does now and then (every 1000 pages, more than a test writes).
func (d *DB) Checkpoint(t testing.TB) {
	t.Helper()
	if _, err := d.SQL.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
}
