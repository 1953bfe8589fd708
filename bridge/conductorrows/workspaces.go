package conductorrows

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Workspace is one row of the workspaces table, with its repository's
// row and its active session's, NULLs as "". Newer builds (0.87–0.90) key
// the table by local_id and keep id as an ordinary column, which sessions
// and every reader still use: ID is id in both shapes.
type Workspace struct {
	ID, DirectoryName, Branch, State string
	DerivedStatus                    string // the sidebar's workflow group, never the agent's status
	ActiveSessionID                  string
	RepoName, RepoRootPath           string // repos.name, repos.root_path
	// The active session's status and agent session id; a session
	// archived in the cloud (remote_archived_at) says nothing here.
	SessionStatus, AgentSessionID string
	// Newer, optional columns: the relocated path, the names a person
	// sees, the workflow group set by hand, and the marks of a cloud
	// workspace (a sandbox provider, a hosting server).
	Path, Name, PRTitle, ManualStatus, SandboxProvider, HostingServerURL string
}

// workspaceQuery is the SELECT built from the columns that exist. Every
// column it yields is a value or NULL, in Workspace's order.
type workspaceQuery string

// buildWorkspaceQuery probes the schema and builds the workspace query.
func buildWorkspaceQuery(ctx context.Context, db Queryer) (workspaceQuery, []string, error) {
	ws, err := tableColumns(ctx, db, "workspaces")
	if err != nil {
		return "", nil, err
	}
	if len(ws) == 0 {
		return "", nil, fmt.Errorf("no workspaces table: not a Conductor database, or an incompatible version")
	}
	for _, c := range []string{"id", "directory_name"} {
		if !ws[c] {
			return "", nil, fmt.Errorf("workspaces table has no %s column: incompatible Conductor version", c)
		}
	}
	repos, err := tableColumns(ctx, db, "repos")
	if err != nil {
		return "", nil, err
	}
	sessions, err := tableColumns(ctx, db, "sessions")
	if err != nil {
		return "", nil, err
	}

	var missing []string
	col := func(have bool, expr, feature string) string {
		if have {
			return expr
		}
		if feature != "" {
			missing = append(missing, feature)
		}
		return "NULL"
	}
	// A workspace is named by id. Newer builds (0.87–0.90) key the table
	// by local_id and keep id as an ordinary column, which sessions and
	// every reader still use: id stays the workspace's id.
	sel := []string{"w.id", "w.directory_name",
		col(ws["branch"], "w.branch", "workspaces.branch: branches come from git only"),
		col(ws["state"], "w.state", "workspaces.state: archived workspaces cannot be told apart"),
		col(ws["derived_status"], "w.derived_status", "workspaces.derived_status"),
		col(ws["active_session_id"], "w.active_session_id", "workspaces.active_session_id: no session id or status"),
	}
	from := "FROM workspaces w"

	switch {
	case len(repos) == 0:
		missing = append(missing, "repos table: repository names guessed from the workspaces folder")
		sel = append(sel, "NULL", "NULL")
	case !ws["repository_id"] || !repos["id"]:
		missing = append(missing, "workspaces.repository_id or repos.id: repository names guessed from the workspaces folder")
		sel = append(sel, "NULL", "NULL")
	default:
		// root_path is the fallback for name, so its absence matters only
		// when name is missing too.
		sel = append(sel,
			col(repos["name"], "r.name", "repos.name: repository names guessed from the workspaces folder or repos.root_path"),
			col(repos["root_path"], "r.root_path", ""))
		from += " LEFT JOIN repos r ON r.id = w.repository_id"
	}

	switch {
	case !ws["active_session_id"]:
		sel = append(sel, "NULL", "NULL") // already reported
	case len(sessions) == 0:
		missing = append(missing, "sessions table: no session status")
		sel = append(sel, "NULL", "NULL")
	case !sessions["id"]:
		missing = append(missing, "sessions.id: no session status")
		sel = append(sel, "NULL", "NULL")
	default:
		sel = append(sel,
			col(sessions["status"], "s.status", "sessions.status: no session status"),
			col(sessions[agentSessionColumn], "s."+agentSessionColumn, "sessions."+agentSessionColumn+": session id taken from workspaces.active_session_id"))
		from += " LEFT JOIN sessions s ON s.id = w.active_session_id"
		if sessions["remote_archived_at"] {
			// A tab archived in the cloud (0.87–0.90) says nothing of
			// the workspace here.
			from += " AND s.remote_archived_at IS NULL"
		}
	}
	// Newer columns, each optional and silently NULL when absent (older
	// builds): the relocated path, the names a person sees, the workflow
	// group, and the marks of a cloud workspace.
	opt := func(c string) string {
		if ws[c] {
			return "w." + c
		}
		return "NULL"
	}
	sel = append(sel, opt("workspace_path"), opt("workspace_name"), opt("pr_title"), opt("manual_status"),
		opt("sandbox_provider"), opt("hosting_server_url"))
	return workspaceQuery("SELECT " + strings.Join(sel, ", ") + " " + from), missing, nil
}

// queryWorkspaces runs q and returns its rows.
func queryWorkspaces(ctx context.Context, db Queryer, q workspaceQuery) ([]Workspace, error) {
	rows, err := db.QueryContext(ctx, string(q))
	if err != nil {
		return nil, fmt.Errorf("query workspaces: %w", err)
	}
	defer rows.Close()
	var out []Workspace
	for rows.Next() {
		// NullString accepts TEXT, INTEGER and BLOB alike: ids may be either.
		var id, dirName, branch, state, derived, active, repoName, rootPath, status, agentID sql.NullString
		var wsPath, wsName, prTitle, manual, sandbox, hosting sql.NullString
		if err := rows.Scan(&id, &dirName, &branch, &state, &derived, &active, &repoName, &rootPath, &status, &agentID,
			&wsPath, &wsName, &prTitle, &manual, &sandbox, &hosting); err != nil {
			return nil, fmt.Errorf("query workspaces: %w", err)
		}
		out = append(out, Workspace{ID: id.String, DirectoryName: dirName.String, Branch: branch.String, State: state.String,
			DerivedStatus: derived.String, ActiveSessionID: active.String, RepoName: repoName.String, RepoRootPath: rootPath.String,
			SessionStatus: status.String, AgentSessionID: agentID.String,
			Path: wsPath.String, Name: wsName.String, PRTitle: prTitle.String, ManualStatus: manual.String,
			SandboxProvider: sandbox.String, HostingServerURL: hosting.String})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query workspaces: %w", err)
	}
	return out, nil
}
