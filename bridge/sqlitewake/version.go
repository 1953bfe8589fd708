package sqlitewake

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go

	"conductorbridge/bridge/regular"
)

// Version asks a database whether another connection committed since it
// last asked (PRAGMA data_version, on one kept read-only connection): the
// read Run wakes for, for a reader whose rows are read elsewhere.
type Version struct {
	path string
	db   *sql.DB
	conn *sql.Conn
	ver  int64
}

// NewVersion asks the database at path once Changed is called.
func NewVersion(path string) *Version { return &Version{path: path, ver: -1} }

// Changed reports whether a commit landed since the last call that said
// so (the first call says so). A database that cannot be read reports
// false with the error, and is opened again next time.
func (v *Version) Changed(ctx context.Context) (bool, error) {
	if v.conn == nil {
		if err := v.open(ctx); err != nil {
			return false, err
		}
	}
	var n int64
	if err := v.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&n); err != nil {
		v.Close()
		return false, fmt.Errorf("data_version %s: %w", v.path, err)
	}
	if n == v.ver {
		return false, nil
	}
	v.ver = n
	return true, nil
}

func (v *Version) open(ctx context.Context) error {
	for _, s := range []string{"", "-wal", "-shm"} {
		if err := regular.Check(v.path + s); err != nil && (s == "" || !errors.Is(err, fs.ErrNotExist)) {
			return fmt.Errorf("open %s: %w", v.path, err)
		}
	}
	if _, err := os.Stat(v.path); err != nil {
		return fmt.Errorf("open %s: %w", v.path, err)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(v.path)}
	db, err := sql.Open("sqlite", u.String()+"?mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)")
	if err != nil {
		return fmt.Errorf("open %s: %w", v.path, err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return fmt.Errorf("open %s: %w", v.path, err)
	}
	v.db, v.conn = db, conn
	return nil
}

// Close lets the connection go.
func (v *Version) Close() {
	if v.conn != nil {
		v.conn.Close()
	}
	if v.db != nil {
		v.db.Close()
	}
	v.db, v.conn, v.ver = nil, nil, -1
}
