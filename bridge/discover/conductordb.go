package discover

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"conductorbridge/bridge/sqliteread"
)

// ReadConductorDB lists the workspaces in Conductor's SQLite database at path
// (DESIGN.md, "Data sources" 1). Workspace directories are
// <conductorRoot>/workspaces/<repos.name>/<workspaces.directory_name>.
//
// The database belongs to Conductor, which is running and writing it (WAL
// mode): it is opened read-only and never created, and only columns that
// PRAGMA table_info reports are queried. An optional column or table that
// is missing leaves its fields empty and is named, for a human, in the
// returned list of missing features. A missing workspaces table (or its id
// or directory_name), a file that is not a database, or one that cannot be
// read is an error; an absent file is an error wrapping fs.ErrNotExist.
func ReadConductorDB(ctx context.Context, path, conductorRoot string) ([]Workspace, []string, error) {
	r, err := ReadConductor(ctx, path, conductorRoot)
	return r.Workspaces, r.Missing, err
}

// Why a database row is not a local workspace (NotLocal.Why).
const (
	NotLocalCloud       = "cloud"
	NotLocalNoDirectory = "no directory on disk"
	NotLocalArchived    = "archived"
)

// NotLocal is a workspaces row that is not a local workspace to follow:
// doctor counts and names them, by the name a person sees (DisplayName)
// and the codename (Name). Directory is, for one whose folder is gone,
// where Conductor placed it (what its agents' records name).
type NotLocal struct{ ID, Name, DisplayName, Why, Directory string }

// ConductorRead is what one read of Conductor's database found.
type ConductorRead struct {
	Workspaces []Workspace // local ones (archived ones included, Archived set)
	NotLocal   []NotLocal  // cloud rows, rows whose directory is gone, archived rows
	Missing    []string    // features this schema lacks, for a human
}

// ReadConductor is ReadConductorDB with the rows that are not local
// workspaces, and each workspace's sessions (chat tabs) named by agents
// (Aliased) and confirmed against their records (TabRecords); with no
// agents, a tab's agent is its agent_type as written.
func ReadConductor(ctx context.Context, path, conductorRoot string, agents ...Agent) (ConductorRead, error) {
	if conductorRoot == "" {
		return ConductorRead{}, fmt.Errorf("read conductor db: no conductor root to place workspaces in")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ConductorRead{}, fmt.Errorf("open conductor db: %w", err)
	}
	// A missing database is an fs.ErrNotExist, for callers to tell "no
	// Conductor" from "broken Conductor".
	ro := sqliteread.New("conductor db", abs)
	defer ro.Close()
	conn, _, err := ro.Open(ctx)
	if err != nil {
		return ConductorRead{}, err
	}
	rows, err := fetchConductor(ctx, conn)
	if err != nil {
		return ConductorRead{}, fmt.Errorf("read conductor db %s: %w", abs, err)
	}
	return rows.resolve(conductorRoot, agents), nil
}

// queryer is a *sql.DB or a *sql.Conn: the one-shot read and the
// Scanner's long-lived connection run the same queries.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// dbRows is what the database itself says, before any of it is
// placed on disk: the part a read can skip while data_version stands.
type dbRows struct {
	workspaces []workspaceRow
	sessions   []sessionRow
	missing    []string
}

// fetchConductor probes the schema and reads the workspace and session
// rows.
func fetchConductor(ctx context.Context, db queryer) (dbRows, error) {
	q, missing, err := buildConductorQuery(ctx, db)
	if err != nil {
		return dbRows{}, err
	}
	ws, err := queryWorkspaces(ctx, db, q)
	if err != nil {
		return dbRows{}, err
	}
	sess, err := querySessions(ctx, db)
	if err != nil {
		return dbRows{}, err
	}
	return dbRows{workspaces: ws, sessions: sess, missing: missing}, nil
}

// resolve places the rows on disk: every scan does this afresh, since a
// worktree or a transcript can appear with no database write.
func (r dbRows) resolve(conductorRoot string, agents []Agent) ConductorRead {
	ws, nl, skipped := placeWorkspaces(r.workspaces, conductorRoot)
	missing := slices.Clone(r.missing)
	if skipped > 0 {
		missing = append(missing, fmt.Sprintf("%d workspace rows skipped: no id, directory name or repository name to place them", skipped))
	}
	placeSessions(r.sessions, ws, agents)
	fillTabs(agents, ws)
	return ConductorRead{Workspaces: ws, NotLocal: nl, Missing: missing}
}

// conductorQuery is the SELECT built from the columns that exist. Every
// column it yields is a value or NULL, in this order: workspace id,
// directory name, branch, state, derived status, active session id, repo
// name, repo root path, session status, the agent's session id.
type conductorQuery string

// buildConductorQuery probes the schema and builds the workspace query.
func buildConductorQuery(ctx context.Context, db queryer) (conductorQuery, []string, error) {
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
	return conductorQuery("SELECT " + strings.Join(sel, ", ") + " " + from), missing, nil
}

// tableColumns returns the columns of table, none when it does not exist.
func tableColumns(ctx context.Context, db queryer, table string) (map[string]bool, error) {
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

// workspaceRow is one row of the workspace query, NULLs as "".
type workspaceRow struct {
	id, dirName, branch, state, derived, active, repoName, rootPath, status, agentID string
	wsPath, wsName, prTitle, manual, sandbox, hosting                                string
}

// queryWorkspaces runs q and returns its rows.
func queryWorkspaces(ctx context.Context, db queryer, q conductorQuery) ([]workspaceRow, error) {
	rows, err := db.QueryContext(ctx, string(q))
	if err != nil {
		return nil, fmt.Errorf("query workspaces: %w", err)
	}
	defer rows.Close()
	var out []workspaceRow
	for rows.Next() {
		// NullString accepts TEXT, INTEGER and BLOB alike: ids may be either.
		var id, dirName, branch, state, derived, active, repoName, rootPath, status, agentID sql.NullString
		var wsPath, wsName, prTitle, manual, sandbox, hosting sql.NullString
		if err := rows.Scan(&id, &dirName, &branch, &state, &derived, &active, &repoName, &rootPath, &status, &agentID,
			&wsPath, &wsName, &prTitle, &manual, &sandbox, &hosting); err != nil {
			return nil, fmt.Errorf("query workspaces: %w", err)
		}
		out = append(out, workspaceRow{id.String, dirName.String, branch.String, state.String, derived.String, active.String,
			repoName.String, rootPath.String, status.String, agentID.String,
			wsPath.String, wsName.String, prTitle.String, manual.String, sandbox.String, hosting.String})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query workspaces: %w", err)
	}
	return out, nil
}

// placeWorkspaces turns workspace rows into workspaces on disk. Rows that
// cannot be placed on disk are counted, not returned.
func placeWorkspaces(rows []workspaceRow, conductorRoot string) ([]Workspace, []NotLocal, int) {
	wsRoot := filepath.Join(conductorRoot, "workspaces")
	var (
		out     []Workspace
		skipped int
		r       = resolver{}
		nl      []NotLocal
	)
	for _, row := range rows {
		// Without repos.name, the folder on disk is the better witness;
		// root_path's base name is a last guess (a clone may be renamed).
		repo := row.repoName
		if repo == "" {
			repo = guessRepo(wsRoot, row.dirName)
		}
		if repo == "" && row.rootPath != "" {
			repo = filepath.Base(filepath.Clean(row.rootPath))
		}
		if row.sandbox != "" || row.hosting != "" {
			// A cloud workspace: no local directory to follow.
			nl = append(nl, NotLocal{ID: row.id, Name: row.dirName, DisplayName: cmp.Or(row.wsName, row.prTitle, row.branch, row.dirName), Why: NotLocalCloud})
			continue
		}
		if row.id == "" || !pathElement(row.dirName) || !pathElement(repo) {
			skipped++
			continue
		}
		w := Workspace{
			ID:               row.id,
			Name:             row.dirName,
			Repo:             repo,
			Branch:           row.branch,
			Directory:        r.resolve(directoryOf(row.wsPath, filepath.Join(wsRoot, repo, row.dirName), row.rootPath, row.dirName)),
			DisplayName:      cmp.Or(row.wsName, row.prTitle, row.branch, row.dirName),
			Workflow:         cmp.Or(row.manual, row.derived),
			Source:           SourceConductorDB,
			Archived:         row.state == "archived",
			ConductorStatus:  row.status,
			ConductorSession: row.active,
		}
		// derived_status is the sidebar's workflow group, never the
		// agent's status: it is exposed as Workflow only.
		if !w.Archived && !isDir(w.Directory) {
			nl = append(nl, NotLocal{ID: w.ID, Name: w.Name, DisplayName: w.DisplayName, Why: NotLocalNoDirectory, Directory: w.Directory})
			continue
		}
		if w.Archived {
			nl = append(nl, NotLocal{ID: w.ID, Name: w.Name, DisplayName: w.DisplayName, Why: NotLocalArchived})
		}
		out = append(out, w)
	}
	return out, nl, skipped
}

// guessRepo finds the repository folder holding a workspace when the
// database cannot name it: the one <wsRoot>/*/<dirName>, if it is unique.
func guessRepo(wsRoot, dirName string) string {
	if !pathElement(dirName) {
		return ""
	}
	matches, err := filepath.Glob(filepath.Join(wsRoot, "*", globEscape(dirName)))
	if err != nil || len(matches) != 1 {
		return ""
	}
	return filepath.Base(filepath.Dir(matches[0]))
}

// pathElement reports whether s can be used as one path element: a value
// from the database must not walk out of the workspaces folder.
func pathElement(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && !strings.ContainsRune(s, 0)
}

// globEscape quotes the characters filepath.Match treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
