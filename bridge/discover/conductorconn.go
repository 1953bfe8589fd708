package discover

import (
	"context"
	"fmt"
	"path/filepath"

	"conductorbridge/bridge/conductorrows"
	"conductorbridge/bridge/sqliteread"
)

// conductorConn is the Scanner's long-lived read-only connection to
// Conductor's database. PRAGMA data_version changes when another
// connection commits, and only then, and only as seen from one connection:
// so the connection is kept open between scans, and a scan whose
// data_version has not moved reuses the rows it read last time instead of
// querying the tables again. Placing the rows on disk (worktree folders,
// transcripts) is redone every scan: those change with no database write.
type conductorConn struct {
	ro      *sqliteread.Conn // to the database at ro.Path(), nil before the first read
	version int64
	rows    conductorrows.Rows
	queries int // how many times the tables were read (tests count them)
}

// read returns the database's rows, read afresh only when the database
// changed since the last read.
func (c *conductorConn) read(ctx context.Context, path string) (conductorrows.Rows, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return conductorrows.Rows{}, fmt.Errorf("open conductor db: %w", err)
	}
	if c.ro != nil && c.ro.Path() != abs {
		c.close() // moved: a connection to the old path sees the old file
	}
	if c.ro == nil {
		c.ro = sqliteread.New("conductor db", abs)
	}
	v, fresh, err := c.ro.DataVersion(ctx)
	if err != nil {
		c.rows = conductorrows.Rows{}
		return conductorrows.Rows{}, err
	}
	if !fresh && v == c.version {
		return c.rows, nil
	}
	rows, err := conductorrows.Read(ctx, c.ro.SQL())
	if err != nil {
		// A later scan starts over on a new connection: an error may have
		// left this one unusable (a cancelled query, a corrupt file).
		c.close()
		return conductorrows.Rows{}, fmt.Errorf("read conductor db %s: %w", abs, err)
	}
	c.queries++
	c.version, c.rows = v, rows
	return rows, nil
}

// close drops the connection; the next read opens a new one.
func (c *conductorConn) close() {
	if c.ro != nil {
		c.ro.Close()
	}
	c.ro, c.rows = nil, conductorrows.Rows{}
}

// DatabaseReads is how many scans read Conductor's tables; the others
// found PRAGMA data_version unchanged and reused the last read's rows.
func (s *Scanner) DatabaseReads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db.queries
}
