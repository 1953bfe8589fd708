package conductor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go

	"conductorbridge/bridge/regular"
)

// db is one read-only connection to Conductor's database. It is kept
// open: PRAGMA data_version moves only when another connection commits,
// as seen from one connection. Every read is one short transaction.
type db struct {
	path  string
	sql   *sql.DB
	conn  *sql.Conn
	file  os.FileInfo // the file open: a file replaced needs a new connection
	cols  string      // the select list, from the columns that exist
	hasID bool        // session_messages.id exists
	ver   int64       // data_version at the last read
}

// dsn opens path read-only: mode=ro (and query_only besides), never
// immutable, which would hide the WAL where Conductor's latest writes are;
// a busy Conductor is waited for, never blocked.
func dsn(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	return u.String() + "?mode=ro&_pragma=busy_timeout(2000)&_pragma=query_only(1)"
}

// open (re)opens the connection when there is none or the file changed,
// and refuses sidecar files that are not regular (a FIFO would hang
// SQLite's open).
func (d *db) open(ctx context.Context) error {
	fi, err := os.Stat(d.path)
	if err != nil {
		d.close()
		return fmt.Errorf("open conductor db: %w", err)
	}
	if !fi.Mode().IsRegular() {
		d.close()
		return fmt.Errorf("open conductor db %s: not a regular file", d.path)
	}
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		if err := regular.Check(d.path + s); err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.close()
			return fmt.Errorf("open conductor db %s: %w", d.path, err)
		}
	}
	if d.conn != nil && os.SameFile(d.file, fi) {
		return nil
	}
	d.close()
	s, err := sql.Open("sqlite", dsn(d.path))
	if err != nil {
		return fmt.Errorf("open conductor db %s: %w", d.path, err)
	}
	s.SetMaxOpenConns(1)
	conn, err := s.Conn(ctx)
	if err != nil {
		s.Close()
		return fmt.Errorf("open conductor db %s: %w", d.path, err)
	}
	d.sql, d.conn, d.file, d.ver = s, conn, fi, -1
	if d.cols, d.hasID, err = d.columns(ctx); err != nil {
		d.close()
		return err
	}
	return nil
}

// columns is the select list of the row fields, NULL for a column this
// build's table lacks; it needs session_id and content.
func (d *db) columns(ctx context.Context) (string, bool, error) {
	rows, err := d.conn.QueryContext(ctx, "SELECT name FROM pragma_table_info('session_messages')")
	if err != nil {
		return "", false, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", false, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
		}
		have[n] = true
	}
	if err := rows.Err(); err != nil {
		return "", false, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	if !have["session_id"] || !have["content"] {
		return "", false, fmt.Errorf("read conductor db %s: session_messages has no session_id or content", d.path)
	}
	list := []string{"rowid", "session_id", "content"}
	for _, c := range []string{"id", "role", "created_at", "cancelled_at"} {
		if have[c] {
			list = append(list, c)
		} else {
			list = append(list, "NULL")
		}
	}
	return strings.Join(list, ", "), have["id"], nil
}

func (d *db) close() {
	if d.conn != nil {
		d.conn.Close()
	}
	if d.sql != nil {
		d.sql.Close()
	}
	d.sql, d.conn, d.file = nil, nil, nil
}

// changed reports whether another connection committed since the last
// call that said so.
func (d *db) changed(ctx context.Context) (bool, error) {
	var v int64
	if err := d.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		return false, fmt.Errorf("read conductor db %s: data_version: %w", d.path, err)
	}
	if v == d.ver {
		return false, nil
	}
	d.ver = v
	return true, nil
}

// queryer is what a read runs on: the connection, or its transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// rows appends the rows that match where, in rowid order, at most limit.
func (d *db) rows(ctx context.Context, q queryer, where string, limit int, out []Row, args ...any) ([]Row, error) {
	rs, err := q.QueryContext(ctx, "SELECT "+d.cols+" FROM session_messages WHERE "+where+" ORDER BY rowid LIMIT "+strconv.Itoa(limit), args...)
	if err != nil {
		return out, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	defer rs.Close()
	for rs.Next() {
		var r Row
		var content, id, role, at, cancelled sql.NullString
		var session sql.NullString
		if err := rs.Scan(&r.RowID, &session, &content, &id, &role, &at, &cancelled); err != nil {
			return out, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
		}
		r.Session, r.Content, r.ID, r.Role, r.CreatedAt, r.Cancelled = session.String, content.String, id.String, role.String, at.String, cancelled.String != ""
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return out, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	return out, nil
}

// last is the table's last row now: rowids are given in order, so rows
// committed after it come after it.
func (d *db) last(ctx context.Context) (Cursor, error) {
	var c Cursor
	var key sql.NullString
	err := d.conn.QueryRowContext(ctx, "SELECT rowid, "+d.idCol()+" FROM session_messages ORDER BY rowid DESC LIMIT 1").Scan(&c.Row, &key)
	if errors.Is(err, sql.ErrNoRows) {
		return Cursor{}, nil
	}
	if err != nil {
		return Cursor{}, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	c.Key = key.String
	return c, nil
}

// keyAt is the id of the row at rowid n now ("" when there is none).
func (d *db) keyAt(ctx context.Context, n int64) (string, error) {
	var key sql.NullString
	err := d.conn.QueryRowContext(ctx, "SELECT "+d.idCol()+" FROM session_messages WHERE rowid = ?", n).Scan(&key)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	return key.String, nil
}

func (d *db) idCol() string {
	if d.hasID {
		return "id"
	}
	return "NULL"
}

// locate is the rowid of the row with id key now, 0 if it is gone.
func (d *db) locate(ctx context.Context, key string) (int64, error) {
	var n int64
	err := d.conn.QueryRowContext(ctx, "SELECT rowid FROM session_messages WHERE id = ?", key).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	return n, nil
}
