package opencode_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"conductorbridge/testkit/opencodetest"
)

// writer stands in for OpenCode (opencodetest.DB) on a database of the
// schema the real binary created.
type writer struct {
	db   *sql.DB
	path string
	d    *opencodetest.DB
}

func newWriter(t testing.TB) *writer {
	t.Helper()
	d := opencodetest.NewDB(t, filepath.Join(t.TempDir(), "opencode.db"), filepath.Join("testdata", "schema.sql"))
	return &writer{db: d.SQL, path: d.Path, d: d}
}

// commit writes one corpus line (Row.Line) as session's row.
func (w *writer) commit(ctx context.Context, session string, line []byte) error {
	return w.d.CommitLine(ctx, session, line)
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
