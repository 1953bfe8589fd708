// Package demo builds a throwaway home with a simulated Conductor install
// and plays a realistic Claude Code session into it, so a newcomer (or a
// side-panel developer) sees the whole product alive without Conductor:
// `conductor-bridge demo`.
//
// Everything the bridge reads is real: a git repository with worktrees, a
// SQLite conductor.db, transcripts in Claude Code 2.1's format, hook calls
// over the bridge's own HTTP endpoint. Only the agent is simulated.
package demo

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go driver the bridge reads Conductor with

	"conductorbridge/bridge/agent/claude"
)

// Workspace is one simulated Conductor workspace.
type Workspace struct {
	ID, Name, Branch string
	Dir              string // the worktree (symlinks resolved: it is the transcript's cwd)
	SessionID        string
	Transcript       string
}

// Home is the throwaway home.
type Home struct {
	Dir        string
	Repo       string
	Workspaces []Workspace
}

// files is the small app the workspaces are worktrees of.
var files = map[string]string{
	"README.md":              "# shop\n\nA tiny storefront for the Conductor Bridge demo.\n",
	"package.json":           `{"name":"shop","scripts":{"test":"vitest","e2e":"playwright test"}}` + "\n",
	"src/settings.tsx":       "export function Settings() {\n  return <form>{/* theme goes here */}</form>;\n}\n",
	"src/login.tsx":          "export function Login({ onSubmit }) {\n  return <form onSubmit={onSubmit}>…</form>;\n}\n",
	"src/theme.ts":           "export const themes = { light: {}, dark: {} };\n",
	"tests/login.spec.ts":    "test('logs in', async () => { /* … */ });\n",
	"tests/settings.spec.ts": "test('toggles the theme', async () => { /* … */ });\n",
}

// Build makes the home in dir: ~/conductor/repos/shop with a commit,
// worktrees for each name under ~/conductor/workspaces/shop, Conductor's
// database naming them, and a transcript for each with its first prompt.
func Build(ctx context.Context, dir string, names []string, seed uint64) (*Home, error) {
	r := rand.New(rand.NewPCG(seed, 7))
	h := &Home{Dir: dir, Repo: filepath.Join(dir, "conductor", "repos", "shop")}
	for name, body := range files {
		p := filepath.Join(h.Repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			return nil, err
		}
	}
	git := func(dir string, args ...string) error {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=Demo", "-c", "user.email=demo@localhost",
			"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v: %s", args, err, out)
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "A tiny storefront"}} {
		if err := git(h.Repo, args...); err != nil {
			return nil, fmt.Errorf("make the demo repository (is git installed?): %w", err)
		}
	}
	for _, name := range names {
		w := Workspace{ID: uuid(r), Name: name, Branch: "demo/" + name, SessionID: uuid(r)}
		wdir := filepath.Join(dir, "conductor", "workspaces", "shop", name)
		if err := git(h.Repo, "worktree", "add", "-q", "-b", w.Branch, wdir); err != nil {
			return nil, err
		}
		resolved, err := filepath.EvalSymlinks(wdir)
		if err != nil {
			return nil, err
		}
		w.Dir = resolved
		proj := filepath.Join(h.Dir, ".claude", "projects", claude.EncodeProjectDir(resolved))
		if err := os.MkdirAll(proj, 0o755); err != nil {
			return nil, err
		}
		w.Transcript = filepath.Join(proj, w.SessionID+".jsonl")
		h.Workspaces = append(h.Workspaces, w)
	}
	if err := h.writeDB(); err != nil {
		return nil, err
	}
	return h, nil
}

// ConductorDB is where the simulated Conductor keeps its database.
func (h *Home) ConductorDB() string {
	return filepath.Join(h.Dir, "Library", "Application Support", "com.conductor.app", "conductor.db")
}

func (h *Home) writeDB() error {
	path := h.ConductorDB()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return fmt.Errorf("make conductor.db: %w", err)
	}
	defer db.Close()
	stmts := []string{
		`CREATE TABLE repos (id TEXT PRIMARY KEY, name TEXT, root_path TEXT, default_branch TEXT)`,
		`CREATE TABLE workspaces (id TEXT PRIMARY KEY, repository_id TEXT, directory_name TEXT, branch TEXT,
			state TEXT, derived_status TEXT, active_session_id TEXT)`,
		`CREATE TABLE sessions (id TEXT PRIMARY KEY, workspace_id TEXT, status TEXT, model TEXT,
			claude_session_id TEXT, updated_at TEXT)`,
		`INSERT INTO repos VALUES ('repo-shop', 'shop', '` + h.Repo + `', 'main')`,
	}
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return fmt.Errorf("make conductor.db: %w", err)
		}
	}
	for _, w := range h.Workspaces {
		if _, err := db.Exec(`INSERT INTO workspaces VALUES (?, 'repo-shop', ?, ?, 'ready', 'idle', ?)`, w.ID, w.Name, w.Branch, w.SessionID); err != nil {
			return fmt.Errorf("make conductor.db: %w", err)
		}
		if _, err := db.Exec(`INSERT INTO sessions VALUES (?, ?, 'idle', 'claude-sonnet-4-5', ?, datetime('now'))`, w.SessionID, w.ID, w.SessionID); err != nil {
			return fmt.Errorf("make conductor.db: %w", err)
		}
	}
	return nil
}

// uuid is a random version-4 UUID from r (reproducible for a seed).
func uuid(r *rand.Rand) string {
	a, b := r.Uint64(), r.Uint64()
	a = a&^(0xf<<12) | 0x4<<12
	b = b&^(0x3<<62) | 0x2<<62
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, a&0xffff, b>>48, b&0xffffffffffff)
}
