package discover

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
)

// conductorConn is the Scanner's long-lived read-only connection to
// Conductor's database. PRAGMA data_version changes when another
// connection commits, and only then, and only as seen from one connection:
// so the connection is kept open between scans, and a scan whose
// data_version has not moved reuses the rows it read last time instead of
// querying the tables again. Placing the rows on disk (worktree folders,
// transcripts) is redone every scan: those change with no database write.
type conductorConn struct {
	path    string
	db      *sql.DB
	conn    *sql.Conn
	file    os.FileInfo // the file the connection has open: a replaced file needs a new one
	version int64
	rows    dbRows
	queries int // how many times the tables were read (tests count them)
}

// read returns the database's rows, read afresh only when the database
// changed since the last read.
func (c *conductorConn) read(ctx context.Context, path string) (dbRows, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return dbRows{}, fmt.Errorf("open conductor db: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		c.close()
		return dbRows{}, fmt.Errorf("open conductor db: %w", err)
	}
	if !fi.Mode().IsRegular() {
		c.close()
		return dbRows{}, fmt.Errorf("open conductor db %s: not a regular file", abs)
	}
	if err := checkSidecars(abs); err != nil {
		c.close()
		return dbRows{}, err
	}
	if c.conn != nil && (c.path != abs || !os.SameFile(c.file, fi)) {
		c.close() // moved, or replaced by a new file: the old connection sees the old one
	}
	fresh := c.conn == nil
	if fresh {
		if err := c.open(ctx, abs, fi); err != nil {
			return dbRows{}, err
		}
	}
	var v int64
	if err := c.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		c.close()
		return dbRows{}, fmt.Errorf("read conductor db %s: data_version: %w", abs, err)
	}
	if !fresh && v == c.version {
		return c.rows, nil
	}
	rows, err := fetchConductor(ctx, c.conn)
	if err != nil {
		// A later scan starts over on a new connection: an error may have
		// left this one unusable (a cancelled query, a corrupt file).
		c.close()
		return dbRows{}, fmt.Errorf("read conductor db %s: %w", abs, err)
	}
	c.queries++
	c.version, c.rows = v, rows
	return rows, nil
}

func (c *conductorConn) open(ctx context.Context, abs string, fi os.FileInfo) error {
	db, err := sql.Open("sqlite", conductorDSN(abs))
	if err != nil {
		return fmt.Errorf("open conductor db %s: %w", abs, err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return fmt.Errorf("open conductor db %s: %w", abs, err)
	}
	c.path, c.db, c.conn, c.file = abs, db, conn, fi
	return nil
}

// close drops the connection; the next read opens a new one.
func (c *conductorConn) close() {
	if c.conn != nil {
		c.conn.Close()
	}
	if c.db != nil {
		c.db.Close()
	}
	c.db, c.conn, c.file, c.rows = nil, nil, nil, dbRows{}
}

// DatabaseReads is how many scans read Conductor's tables; the others
// found PRAGMA data_version unchanged and reused the last read's rows.
func (s *Scanner) DatabaseReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.queries
}
