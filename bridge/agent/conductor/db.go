package conductor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"conductorbridge/bridge/sqliteread"
)

// db is one read-only connection to Conductor's database
// (bridge/sqliteread), with the statements prepared on it. Every read is
// one short transaction.
type db struct {
	path  string
	ro    *sqliteread.Conn
	conn  *sql.Conn // ro's connection, since the last open
	cols  string    // the select list, from the columns that exist
	hasID bool      // session_messages.id exists
	ver   int64     // data_version at the last read
	// stmts are the statements prepared on conn, by their text: a read
	// is a few small queries, and preparing them each time was most of
	// its cost.
	stmts map[string]*sql.Stmt
}

// dbAt is the database at path; it is opened on the first read.
func dbAt(path string) db { return db{path: path, ro: sqliteread.New("conductor db", path)} }

// stmt returns q prepared on the connection.
func (d *db) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := d.stmts[q]; ok {
		return st, nil
	}
	if len(d.stmts) >= 32 { // scans of tab sets gone by
		d.closeStmts()
	}
	st, err := d.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read conductor db %s: %w", d.path, err)
	}
	if d.stmts == nil {
		d.stmts = map[string]*sql.Stmt{}
	}
	d.stmts[q] = st
	return st, nil
}

func (d *db) closeStmts() {
	for _, st := range d.stmts {
		st.Close()
	}
	d.stmts = nil
}

// open (re)opens the connection when there is none or the file changed.
func (d *db) open(ctx context.Context) error {
	conn, fresh, err := d.ro.Open(ctx)
	if err != nil {
		d.close()
		return err
	}
	if !fresh {
		return nil
	}
	d.closeStmts() // prepared on the connection that is gone
	d.conn, d.ver = conn, -1
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
	d.closeStmts()
	d.ro.Close()
	d.conn = nil
}

// changed reports whether another connection committed since the last
// call that said so.
func (d *db) changed(ctx context.Context) (bool, error) {
	var v int64
	st, err := d.stmt(ctx, "PRAGMA data_version")
	if err != nil {
		return false, err
	}
	if err := st.QueryRowContext(ctx).Scan(&v); err != nil {
		return false, fmt.Errorf("read conductor db %s: data_version: %w", d.path, err)
	}
	if v == d.ver {
		return false, nil
	}
	d.ver = v
	return true, nil
}

// rows appends the rows that match where, in rowid order, at most limit.
func (d *db) rows(ctx context.Context, where string, limit int, out []Row, args ...any) ([]Row, error) {
	err := d.each(ctx, where+" ORDER BY rowid LIMIT "+strconv.Itoa(limit), func(r *Row) { out = append(out, *r) }, args...)
	return out, err
}

// selectRows is the query of the rows that match where (and what
// follows it: an order, a limit).
func (d *db) selectRows(where string) string {
	return "SELECT " + d.cols + " FROM session_messages WHERE " + where
}

// each calls fn with each row that matches where, as selectRows asks
// for them; the row is fn's only until it returns.
func (d *db) each(ctx context.Context, where string, fn func(*Row), args ...any) error {
	st, err := d.stmt(ctx, d.selectRows(where))
	if err != nil {
		return err
	}
	rs, err := st.QueryContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	defer rs.Close()
	var r Row
	var content, id, role, at, cancelled, session sql.NullString
	for rs.Next() {
		if err := rs.Scan(&r.RowID, &session, &content, &id, &role, &at, &cancelled); err != nil {
			return fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
		}
		r.Session, r.Content, r.ID, r.Role, r.CreatedAt, r.Cancelled = session.String, content.String, id.String, role.String, at.String, cancelled.String != ""
		fn(&r)
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	return nil
}

// last is the table's last row now (rowids are given in order, so rows
// committed after it come after it), and the id of the row at rowid at.
func (d *db) last(ctx context.Context, at int64) (Cursor, string, error) {
	var c Cursor
	var key, keyAt sql.NullString
	st, err := d.stmt(ctx, "SELECT rowid, "+d.idCol()+", (SELECT "+d.idCol()+" FROM session_messages WHERE rowid = ?) FROM session_messages ORDER BY rowid DESC LIMIT 1")
	if err != nil {
		return Cursor{}, "", err
	}
	err = st.QueryRowContext(ctx, at).Scan(&c.Row, &key, &keyAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Cursor{}, "", nil
	}
	if err != nil {
		return Cursor{}, "", fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	c.Key = key.String
	return c, keyAt.String, nil
}

// end is the table's last rowid, 0 when it is empty.
func (d *db) end(ctx context.Context) (int64, error) {
	st, err := d.stmt(ctx, "SELECT COALESCE(MAX(rowid), 0) FROM session_messages")
	if err != nil {
		return 0, err
	}
	var n int64
	if err := st.QueryRowContext(ctx).Scan(&n); err != nil {
		return 0, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	return n, nil
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
	st, err := d.stmt(ctx, "SELECT rowid FROM session_messages WHERE id = ?")
	if err != nil {
		return 0, err
	}
	err = st.QueryRowContext(ctx, key).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read conductor db %s: session_messages: %w", d.path, err)
	}
	return n, nil
}
