package opencode

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, no cgo

	"conductorbridge/bridge/regular"
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

// Store reads one OpenCode database, read-only. It holds one connection,
// opened on first use and again after an error; it is not safe for
// concurrent use.
type Store struct {
	path string
	db   *sql.DB
	conn *sql.Conn
}

// NewStore returns a store for the database at path; nothing is opened
// until the first read.
func NewStore(path string) *Store { return &Store{path: path} }

// Path is the database's path.
func (s *Store) Path() string { return s.path }

// Close drops the connection; a later read opens a new one.
func (s *Store) Close() error {
	var err error
	if s.conn != nil {
		err = s.conn.Close()
	}
	if s.db != nil {
		err = errors.Join(err, s.db.Close())
	}
	s.db, s.conn = nil, nil
	return err
}

// dsn opens path read-only: mode=ro, and query_only in case that is ever
// lost. The WAL is read (immutable is not set: OpenCode's latest writes
// are there). A reader takes no lock OpenCode's writer waits for in WAL
// mode; busy_timeout covers the moments SQLite itself needs one (a
// checkpoint's end, a WAL being reset).
func dsn(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String() + "?mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)"
}

// open makes sure a connection is there. The database and the files
// SQLite opens beside it must be regular files: a FIFO would hang the
// read.
func (s *Store) open(ctx context.Context) (*sql.Conn, error) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := regular.Check(s.path + suffix); err != nil {
			if suffix != "" && errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, fmt.Errorf("open opencode db %s: %w", s.path, err)
		}
	}
	if s.conn != nil {
		return s.conn, nil
	}
	db, err := sql.Open("sqlite", dsn(s.path))
	if err != nil {
		return nil, fmt.Errorf("open opencode db %s: %w", s.path, err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open opencode db %s: %w", s.path, err)
	}
	s.db, s.conn = db, conn
	return conn, nil
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
func (s *Store) DataVersion(ctx context.Context) (int64, error) {
	conn, err := s.open(ctx)
	if err != nil {
		return 0, err
	}
	var v int64
	if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return 0, s.fail(fmt.Errorf("opencode db %s: data_version: %w", s.path, err))
	}
	return v, nil
}
