package discover

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"conductorbridge/bridge/conductorrows"
	"conductorbridge/bridge/sqliteread"
)

// ReadConductorDB lists the workspaces in Conductor's SQLite database at path
// (DESIGN.md, "Data sources" 1), its tables read by bridge/conductorrows.
// Workspace directories are <conductorRoot>/workspaces/<repos.name>/<workspaces.directory_name>.
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
	rows, err := conductorrows.Read(ctx, conn)
	if err != nil {
		return ConductorRead{}, fmt.Errorf("read conductor db %s: %w", abs, err)
	}
	return placeRows(rows, conductorRoot, agents), nil
}

// placeRows places the rows on disk: every scan does this afresh, since a
// worktree or a transcript can appear with no database write.
func placeRows(r conductorrows.Rows, conductorRoot string, agents []Agent) ConductorRead {
	ws, nl, skipped := placeWorkspaces(r.Workspaces, conductorRoot)
	missing := slices.Clone(r.Missing)
	if skipped > 0 {
		missing = append(missing, fmt.Sprintf("%d workspace rows skipped: no id, directory name or repository name to place them", skipped))
	}
	placeSessions(r.Sessions, ws, agents)
	fillTabs(agents, ws)
	return ConductorRead{Workspaces: ws, NotLocal: nl, Missing: missing}
}

// placeWorkspaces turns workspace rows into workspaces on disk. Rows that
// cannot be placed on disk are counted, not returned.
func placeWorkspaces(rows []conductorrows.Workspace, conductorRoot string) ([]Workspace, []NotLocal, int) {
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
		repo := row.RepoName
		if repo == "" {
			repo = guessRepo(wsRoot, row.DirectoryName)
		}
		if repo == "" && row.RepoRootPath != "" {
			repo = filepath.Base(filepath.Clean(row.RepoRootPath))
		}
		if row.SandboxProvider != "" || row.HostingServerURL != "" {
			// A cloud workspace: no local directory to follow.
			nl = append(nl, NotLocal{ID: row.ID, Name: row.DirectoryName, DisplayName: cmp.Or(row.Name, row.PRTitle, row.Branch, row.DirectoryName), Why: NotLocalCloud})
			continue
		}
		if row.ID == "" || !pathElement(row.DirectoryName) || !pathElement(repo) {
			skipped++
			continue
		}
		w := Workspace{
			ID:               row.ID,
			Name:             row.DirectoryName,
			Repo:             repo,
			Branch:           row.Branch,
			Directory:        r.resolve(directoryOf(row.Path, filepath.Join(wsRoot, repo, row.DirectoryName), row.RepoRootPath, row.DirectoryName)),
			DisplayName:      cmp.Or(row.Name, row.PRTitle, row.Branch, row.DirectoryName),
			Workflow:         cmp.Or(row.ManualStatus, row.DerivedStatus),
			Source:           SourceConductorDB,
			Archived:         row.State == "archived",
			ConductorStatus:  row.SessionStatus,
			ConductorSession: row.ActiveSessionID,
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
