// Package conductorrows is Conductor's database: its tables as rows. It
// knows the schema (the workspaces, repos and sessions tables and their
// columns, in every shape Conductor has written them) and reads them as
// they are, NULLs as "" and 0; where the rows are on disk is the
// caller's to find (bridge/discover).
//
// The database belongs to Conductor, which is running and writing it:
// only columns that PRAGMA table_info reports are queried. An optional
// column or table that is missing reads as NULL and is named, for a
// human, in Rows.Missing.
package conductorrows

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Queryer is a *sql.DB or a *sql.Conn: a one-shot read and a long-lived
// connection run the same queries.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Rows is what one read of the database found.
type Rows struct {
	Workspaces []Workspace
	Sessions   []Session
	Missing    []string // features this schema lacks, for a human
}

// Read probes the schema and reads the workspace and session rows. A
// missing workspaces table (or its id or directory_name) is an error.
func Read(ctx context.Context, db Queryer) (Rows, error) {
	r, err := ReadWorkspaces(ctx, db)
	if err != nil {
		return Rows{}, err
	}
	if r.Sessions, err = querySessions(ctx, db); err != nil {
		return Rows{}, err
	}
	return r, nil
}

// ReadWorkspaces is Read without the sessions: the workspace rows and what
// the schema lacks, for a reader that needs only where workspaces are.
func ReadWorkspaces(ctx context.Context, db Queryer) (Rows, error) {
	q, missing, err := buildWorkspaceQuery(ctx, db)
	if err != nil {
		return Rows{}, err
	}
	ws, err := queryWorkspaces(ctx, db, q)
	if err != nil {
		return Rows{}, err
	}
	return Rows{Workspaces: ws, Missing: missing}, nil
}

// tableColumns returns the columns of table, none when it does not exist.
func tableColumns(ctx context.Context, db Queryer, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, fmt.Errorf("probe table %s: %w", table, err)
	}
	defer rows.Close()
	cols := make(map[string]bool)
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("probe table %s: %w", table, err)
		}
		cols[strings.ToLower(name)] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("probe table %s: %w", table, err)
	}
	return cols, nil
}
