package discover

import (
	"context"
	"database/sql"
	"fmt"

	"conductorbridge/bridge/conductorrows"
)

// ConductorWorkspaces is what ReadConductor finds of the workspaces (the
// local ones and the rows that are not), without their sessions, read on
// conn: a connection to the database the caller opened, within its
// transaction when it is in one. usage places the tabs whose rows it
// counts so, in the read of those rows, rather than opening the database
// again and reading every session at every read.
func ConductorWorkspaces(ctx context.Context, conn *sql.Conn, conductorRoot string) (ConductorRead, error) {
	if conductorRoot == "" {
		return ConductorRead{}, fmt.Errorf("read conductor db: no conductor root to place workspaces in")
	}
	rows, err := conductorrows.ReadWorkspaces(ctx, conn)
	if err != nil {
		return ConductorRead{}, fmt.Errorf("read conductor db: %w", err)
	}
	return placeRows(rows, conductorRoot, nil), nil
}
