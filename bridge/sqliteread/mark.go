package sqliteread

import (
	"context"
	"database/sql"
	"fmt"
)

// Mark is what a table was at one of its rows: a reader that read every
// row up to Rowid (rowids are given in order, so rows committed later
// come after it) can later read only the rows after it, if the table
// still holds the same rows up to there. Rows below the mark that were
// deleted lower the count; a row at the mark deleted, or its rowid given
// to another row (deleted from the table's end, then another inserted; a
// VACUUM renumbering the rows of a table with no INTEGER PRIMARY KEY),
// changes Key; a schema change, Schema. A row updated in place is not
// seen: it is for tables written once a row (logs of events, of frames).
type Mark struct {
	Schema int64  // PRAGMA schema_version
	Rowid  int64  // the last row read (0: none)
	Count  int64  // the rows at or below Rowid
	Key    string // the row at Rowid, as key says it ("": none)
}

// Queryer is a connection or a transaction on it.
type Queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// MarkOf is table's mark at its last row now, on conn (within the
// caller's transaction, so that it is of the rows read). key is an SQL
// expression naming a row uniquely (its id and place).
func MarkOf(ctx context.Context, conn Queryer, table, key string) (Mark, error) {
	var m Mark
	var k sql.NullString
	if err := conn.QueryRowContext(ctx, markQuery(table, key)).Scan(&m.Schema, &m.Count, &m.Rowid, &k); err != nil {
		return Mark{}, fmt.Errorf("mark %s: %w", table, err)
	}
	m.Key = k.String
	return m, nil
}

// markQuery is MarkOf's query. Each figure is its own subquery, which
// SQLite answers from the b-tree's ends and its count of entries: asked
// together of one table, count(*) and max(rowid) stepped through every
// row.
func markQuery(table, key string) string {
	return "SELECT (SELECT schema_version FROM pragma_schema_version), (SELECT count(*) FROM " + table + "), " +
		"(SELECT COALESCE(max(rowid), 0) FROM " + table + "), (SELECT " + key + " FROM " + table + " ORDER BY rowid DESC LIMIT 1)"
}

// Holds reports whether table, on conn, still holds the rows up to m as
// they were when m was taken (within the caller's transaction).
func (m Mark) Holds(ctx context.Context, conn Queryer, table, key string) (bool, error) {
	var schema, total, after int64
	var k sql.NullString
	q := "SELECT (SELECT schema_version FROM pragma_schema_version), (SELECT count(*) FROM " + table + "), " +
		"(SELECT count(*) FROM " + table + " WHERE rowid > ?1), (SELECT " + key + " FROM " + table + " WHERE rowid = ?1)"
	if err := conn.QueryRowContext(ctx, q, m.Rowid).Scan(&schema, &total, &after, &k); err != nil {
		return false, fmt.Errorf("check %s: %w", table, err)
	}
	return schema == m.Schema && total-after == m.Count && k.String == m.Key, nil
}
