// Package sqliteread reads another program's SQLite database (Conductor's,
// OpenCode's) without ever getting in its way: one read-only connection,
// kept open, that never blocks the writer and never hangs on a file that
// is not a regular one.
package sqliteread

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

// Conn is one read-only connection to the database at a path. It is kept
// open between reads: PRAGMA data_version moves only when another
// connection commits, as seen from one connection. It is opened again
// when the file at the path is replaced (the old connection would go on
// reading the old file) and after Close. It is not safe for concurrent
// use.
type Conn struct {
	name string // what errors call the database: "conductor db"
	path string
	db   *sql.DB
	conn *sql.Conn
	file os.FileInfo // the file the connection has open
}

// New returns a connection to the database at path, which errors call
// name; nothing is opened until Open.
func New(name, path string) *Conn { return &Conn{name: name, path: path} }

// Path is the database's path.
func (c *Conn) Path() string { return c.path }

// Open returns the connection, opening one when there is none or the
// file at the path was replaced; fresh reports a new connection. The
// database must be a regular file, and so must each file SQLite opens
// beside it that is there (its -wal and -shm, and a -journal it checks
// for a crash's leftovers): SQLite opens them without O_NONBLOCK, and a
// FIFO in their place would hang the read, and every read after it. They
// are checked before every read, as SQLite opens -journal anew on each.
// A missing database is an error wrapping fs.ErrNotExist, so a caller can
// tell "no database" from "a broken one". On an error the connection is
// closed.
func (c *Conn) Open(ctx context.Context) (conn *sql.Conn, fresh bool, err error) {
	fi, err := os.Stat(c.path)
	if err != nil {
		c.Close()
		return nil, false, fmt.Errorf("open %s: %w", c.name, err)
	}
	if !fi.Mode().IsRegular() {
		c.Close()
		return nil, false, fmt.Errorf("open %s %s: not a regular file", c.name, c.path)
	}
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		if err := regular.Check(c.path + s); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.Close()
			return nil, false, fmt.Errorf("open %s %s: %w", c.name, c.path, err)
		}
	}
	if c.conn != nil && os.SameFile(c.file, fi) {
		return c.conn, false, nil
	}
	c.Close()
	db, err := sql.Open("sqlite", dsn(c.path))
	if err != nil {
		return nil, false, fmt.Errorf("open %s %s: %w", c.name, c.path, err)
	}
	db.SetMaxOpenConns(1)
	conn, err = db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, false, fmt.Errorf("open %s %s: %w", c.name, c.path, err)
	}
	c.db, c.conn, c.file = db, conn, fi
	return conn, true, nil
}

// SQL is the connection the last Open returned, nil when there is none.
func (c *Conn) SQL() *sql.Conn { return c.conn }

// DataVersion is PRAGMA data_version on the connection, opened if need
// be (fresh: a new one, whose numbers are not comparable with the last
// one's): it changes when another connection committed, and only then.
// On an error the connection is closed (a later call opens a new one).
func (c *Conn) DataVersion(ctx context.Context) (v int64, fresh bool, err error) {
	conn, fresh, err := c.Open(ctx)
	if err != nil {
		return 0, false, err
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		c.Close()
		return 0, false, fmt.Errorf("read %s %s: data_version: %w", c.name, c.path, err)
	}
	return v, fresh, nil
}

// Close lets the connection go; a later Open opens a new one.
func (c *Conn) Close() error {
	var err error
	if c.conn != nil {
		err = c.conn.Close()
	}
	if c.db != nil {
		err = errors.Join(err, c.db.Close())
	}
	c.db, c.conn, c.file = nil, nil, nil
	return err
}

// dsn opens path read-only: mode=ro, and query_only in case that is ever
// lost. immutable is not set: it would make SQLite ignore the WAL, where
// the writer's latest commits are. A reader takes no lock the writer
// waits for in WAL mode; busy_timeout covers the moments SQLite itself
// needs one (a checkpoint's end, a WAL being reset).
func dsn(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)} // escapes '?', '#', '%' and spaces
	return u.String() + "?mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)"
}
