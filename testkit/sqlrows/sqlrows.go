// Package sqlrows reads the whole result of any query, its columns and
// each row's values as the driver gives them, for tests that look at what
// a database holds (or at a query's program) without a struct for it.
package sqlrows

import (
	"database/sql"
	"fmt"
)

// All runs query on db and returns its columns and every row's values,
// in the order the query gives them.
func All(db *sql.DB, query string, args ...any) (cols []string, rows [][]any, err error) {
	rs, err := db.Query(query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("query: %w", err)
	}
	defer rs.Close()
	if cols, err = rs.Columns(); err != nil {
		return nil, nil, fmt.Errorf("columns: %w", err)
	}
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, nil, fmt.Errorf("scan: %w", err)
		}
		rows = append(rows, vals)
	}
	if err := rs.Err(); err != nil {
		return nil, nil, fmt.Errorf("rows: %w", err)
	}
	return cols, rows, nil
}
