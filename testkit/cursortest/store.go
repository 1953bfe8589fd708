package cursortest

import (
	"database/sql"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"conductorbridge/testkit/sqlrows"

	_ "modernc.org/sqlite" // the "sqlite" driver, pure Go
)

// OpenStore opens an index.db the SDK wrote, read-only.
func OpenStore(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path}).String()+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return db, nil
}

// Row is one row of a table, by column.
type Row map[string]any

// String is column c as text ("" for NULL).
func (r Row) String(c string) string {
	switch v := r[c].(type) {
	case nil:
		return ""
	case []byte:
		return string(v)
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// Rows reads every row of table in rowid order.
func Rows(db *sql.DB, table string) ([]Row, error) {
	cols, vals, err := sqlrows.All(db, selectAll(table))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", table, err)
	}
	var out []Row
	for _, v := range vals {
		row := Row{}
		for i, c := range cols {
			row[c] = v[i]
		}
		out = append(out, row)
	}
	return out, nil
}

// Dump writes the store as SQL text (the form the recorded corpus keeps:
// no binary database in git): its schema, the statements the SDK made its
// tables and indexes with in the order it made them (the form of
// bridge/agent/cursor/testdata/sdk-<SDKVersion>/schema.sql), and its rows,
// to be run after the schema. Each agent's metadata_json holds the key its
// blobs are encrypted with and is written as '{}': it is never read,
// printed or recorded.
func Dump(db *sql.DB) (schema, rows string, err error) {
	objects, err := schemaObjects(db)
	if err != nil {
		return "", "", err
	}
	var sb, rb strings.Builder
	rb.WriteString("BEGIN TRANSACTION;\n")
	for _, o := range objects {
		sb.WriteString(o.sql + ";\n")
		if o.typ != "table" {
			continue
		}
		if err := dumpRows(db, &rb, o.name); err != nil {
			return "", "", err
		}
	}
	rb.WriteString("COMMIT;\n")
	return sb.String(), rb.String(), nil
}

// schemaObject is one table or index of a store, as sqlite_master has it.
type schemaObject struct{ typ, name, sql string }

// schemaObjects reads the store's tables and indexes in the order they
// were made, SQLite's own left out.
func schemaObjects(db *sql.DB) ([]schemaObject, error) {
	rows, err := db.Query(`SELECT type, name, sql FROM sqlite_master
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("dump schema: %w", err)
	}
	defer rows.Close()
	var objects []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.sql); err != nil {
			return nil, fmt.Errorf("dump schema: %w", err)
		}
		objects = append(objects, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dump schema: %w", err)
	}
	return objects, nil
}

// dumpRows writes table's rows as INSERT statements, column by column in
// the table's order.
func dumpRows(db *sql.DB, b *strings.Builder, table string) error {
	cols, vals, err := sqlrows.All(db, selectAll(table))
	if err != nil {
		return fmt.Errorf("dump %s: %w", table, err)
	}
	for _, v := range vals {
		lits := make([]string, len(cols))
		for i, c := range cols {
			if table == "agents" && c == "metadata_json" {
				lits[i] = "'{}'"
				continue
			}
			lits[i] = sqlLiteral(v[i])
		}
		fmt.Fprintf(b, "INSERT INTO %s VALUES(%s);\n", quoteIdent(table), strings.Join(lits, ","))
	}
	return nil
}

// sqlLiteral writes v as SQLite reads it back: NULL, a number, a quoted
// string or a blob X'…'.
func sqlLiteral(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case []byte:
		return fmt.Sprintf("X'%X'", v)
	case string:
		return "'" + strings.ReplaceAll(v, "'", "''") + "'"
	case bool:
		if v {
			return "1"
		}
		return "0"
	}
	return "'" + strings.ReplaceAll(fmt.Sprint(v), "'", "''") + "'"
}

// selectAll is the query of every row of table, in rowid order.
func selectAll(table string) string { return "SELECT * FROM " + quoteIdent(table) + " ORDER BY rowid" }

func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
