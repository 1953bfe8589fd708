package discover

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
)

// fakeHome is a user's home in a temp dir: Conductor's folders, its
// database and Claude Code's transcripts, all built by the test.
type fakeHome struct {
	t         testing.TB
	root      string // resolved: on macOS TempDir is under a symlink
	conductor string // ~/conductor
	projects  string // ~/.claude/projects
	db        string // Conductor's database (not created until asked)
}

func newFakeHome(t testing.TB) *fakeHome {
	t.Helper()
	root := resolvePath(t.TempDir())
	return &fakeHome{
		t:         t,
		root:      root,
		conductor: filepath.Join(root, "conductor"),
		projects:  filepath.Join(root, ".claude", "projects"),
		db:        filepath.Join(root, "Library", "Application Support", "com.conductor.app", "conductor.db"),
	}
}

// claude is Claude Code's driver for this home's projects folder.
func (h *fakeHome) claude() claude.Agent { return claude.Agent{Projects: h.projects} }

// readWhole reads the home's Conductor database, which must have every
// column the reader asks for, and returns what it read with its
// workspaces by id.
func (h *fakeHome) readWhole() (ConductorRead, map[string]Workspace) {
	h.t.Helper()
	got, err := ReadConductor(context.Background(), h.db, h.conductor, h.claude())
	if err != nil {
		h.t.Fatal(err)
	}
	if len(got.Missing) != 0 {
		h.t.Errorf("missing = %q, want none", got.Missing)
	}
	byID := map[string]Workspace{}
	for _, w := range got.Workspaces {
		byID[w.ID] = w
	}
	return got, byID
}

// repo makes <conductor>/repos/<name>, a repository with a .git folder.
func (h *fakeHome) repo(name string) string {
	h.t.Helper()
	dir := filepath.Join(h.conductor, "repos", name)
	writeFile(h.t, filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
	return dir
}

// worktree makes <conductor>/workspaces/<repo>/<name>, a linked worktree of
// repos/<repo> on branch, the way Conductor (git worktree add) does.
func (h *fakeHome) worktree(repo, name, branch string) string {
	h.t.Helper()
	main := filepath.Join(h.conductor, "repos", repo)
	if _, err := os.Stat(filepath.Join(main, ".git")); err != nil {
		h.repo(repo)
	}
	dir := filepath.Join(h.conductor, "workspaces", repo, name)
	makeWorktree(h.t, main, dir, name, "ref: refs/heads/"+branch, false)
	return dir
}

// makeWorktree makes dir a linked worktree of the repository main, with
// HEAD as given; relative writes the links the way git ≥ 2.48 can.
func makeWorktree(t testing.TB, main, dir, name, head string, relative bool) {
	t.Helper()
	gitDir := filepath.Join(main, ".git", "worktrees", name)
	link := gitDir
	if relative {
		var err error
		if link, err = filepath.Rel(dir, gitDir); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, ".git"), "gitdir: "+link+"\n")
	writeFile(t, filepath.Join(dir, "README.md"), "hello\n")
	writeFile(t, filepath.Join(gitDir, "HEAD"), head+"\n")
	writeFile(t, filepath.Join(gitDir, "commondir"), "../..\n")
	writeFile(t, filepath.Join(gitDir, "gitdir"), filepath.Join(dir, ".git")+"\n")
}

// transcript writes <projects>/<project>/<name> with lines and mtime mod.
func (h *fakeHome) transcript(project, name string, mod time.Time, lines ...string) string {
	h.t.Helper()
	p := filepath.Join(h.projects, project, name)
	var b []byte
	for _, l := range lines {
		b = append(b, l...)
		b = append(b, '\n')
	}
	writeFile(h.t, p, string(b))
	if err := os.Chtimes(p, mod, mod); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// record is a transcript line recording cwd.
func record(typ, cwd string) string {
	b, err := json.Marshal(map[string]any{
		"type": typ, "cwd": cwd, "sessionId": "s", "uuid": "u", "isSidechain": false,
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// conductorSchema is the schema seen on real installs (DESIGN.md), with
// a few columns the bridge does not read.
const conductorSchema = `
CREATE TABLE repos (id TEXT PRIMARY KEY, name TEXT, root_path TEXT, default_branch TEXT, created_at TEXT);
CREATE TABLE workspaces (id TEXT PRIMARY KEY, repository_id TEXT, directory_name TEXT, branch TEXT,
	state TEXT, derived_status TEXT, active_session_id TEXT, created_at TEXT);
CREATE TABLE sessions (id TEXT PRIMARY KEY, workspace_id TEXT, status TEXT, model TEXT,
	claude_session_id TEXT, updated_at TEXT);
CREATE TABLE session_messages (id TEXT PRIMARY KEY, session_id TEXT, content TEXT);
`

// createDB makes a SQLite database at path and runs stmts in it.
func createDB(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db := openRW(t, path)
	defer db.Close()
	execAll(t, db, stmts...)
}

func openRW(t testing.TB, path string) *sql.DB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// A URI, so that a '?' or '#' in path is part of the name.
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func execAll(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
