package opencode

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"

	"conductorbridge/bridge/sqliteread"
)

// DBName is the database OpenCode 1.x writes in its data folder.
const DBName = "opencode.db"

// DefaultDB is where OpenCode keeps its database for a user: under
// $XDG_DATA_HOME when it is an absolute path, else ~/.local/share, on
// every OS (OpenCode uses the XDG folders on macOS too).
func DefaultDB(home string, getenv func(string) string) string {
	data := getenv("XDG_DATA_HOME")
	if data == "" || !filepath.IsAbs(data) {
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "opencode", DBName)
}

// Store reads one OpenCode database, read-only (bridge/sqliteread). It
// holds one connection, opened on first use and again after an error; it
// is not safe for concurrent use.
type Store struct {
	path string
	conn *sqliteread.Conn
}

// NewStore returns a store for the database at path; nothing is opened
// until the first read.
func NewStore(path string) *Store {
	return &Store{path: path, conn: sqliteread.New("opencode db", path)}
}

// Path is the database's path.
func (s *Store) Path() string { return s.path }

// Close drops the connection; a later read opens a new one.
func (s *Store) Close() error { return s.conn.Close() }

// open makes sure a connection is there.
func (s *Store) open(ctx context.Context) (*sql.Conn, error) {
	conn, _, err := s.conn.Open(ctx)
	return conn, err
}

// fail drops the connection after an error, which may have left it
// unusable, and returns err.
func (s *Store) fail(err error) error {
	_ = s.Close()
	return err
}

// Exists reports whether the database is there (a user who never ran
// OpenCode 1.x has none).
func (s *Store) Exists() bool {
	fi, err := os.Stat(s.path)
	return err == nil && fi.Mode().IsRegular()
}

// DataVersion is SQLite's PRAGMA data_version on the store's connection:
// it changes when another connection (OpenCode) committed, so a caller
// woken by a write to the WAL reads rows only when there is something new.
// fresh: a new connection, whose numbers are not comparable with the
// last one's.
func (s *Store) DataVersion(ctx context.Context) (v int64, fresh bool, err error) {
	return s.conn.DataVersion(ctx)
}
