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

// Store reads one OpenCode database, read-only: it is the database's
// sqliteread.Conn (its Path, DataVersion, a move when OpenCode committed,
// and Close, after which a read opens a new connection, are the Conn's).
// It holds one connection, opened on first use and again after an error;
// it is not safe for concurrent use.
type Store struct {
	*sqliteread.Conn
}

// NewStore returns a store for the database at path; nothing is opened
// until the first read.
func NewStore(path string) *Store {
	return &Store{sqliteread.New("opencode db", path)}
}

// open makes sure a connection is there.
func (s *Store) open(ctx context.Context) (*sql.Conn, error) {
	conn, _, err := s.Open(ctx)
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
	fi, err := os.Stat(s.Path())
	return err == nil && fi.Mode().IsRegular()
}
