// Package paths derives every location the bridge reads or writes from the
// user's home directory (and CLAUDE_CONFIG_DIR, CODEX_HOME), so that HOME=<dir> runs the
// whole bridge on a fake home and each root can be overridden by a flag.
package paths

import (
	"errors"
	"path/filepath"
)

// Roots are the directories and files the bridge works with.
type Roots struct {
	Home           string // the user's home
	ClaudeProjects string // Claude Code transcripts: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects
	ClaudeSettings string // ~/.claude/settings.json (user-scope hooks)
	CodexHome      string // Codex's home: $CODEX_HOME or ~/.codex (sessions/, config.toml)
	ConductorDB    string // Conductor's SQLite database (same path on every OS)
	ConductorRoot  string // ~/conductor: workspaces/, repos/, archived-contexts/
	StateDir       string // the bridge's own state: token, registrations, event journals
	LogDir         string // rotating log files
}

// Env looks up an environment variable; os.Getenv in production, a map in tests.
type Env func(string) string

// Default returns the roots for a home directory on goos ("darwin", "linux", …).
func Default(home string, goos string, env Env) (Roots, error) {
	if home == "" {
		return Roots{}, errors.New("no home directory: set HOME")
	}
	claudeDir := filepath.Join(home, ".claude")
	if d := env("CLAUDE_CONFIG_DIR"); d != "" {
		claudeDir = d
	}
	codexHome := filepath.Join(home, ".codex")
	if d := env("CODEX_HOME"); d != "" && filepath.IsAbs(d) {
		codexHome = d
	}
	r := Roots{
		Home:           home,
		ClaudeProjects: filepath.Join(claudeDir, "projects"),
		ClaudeSettings: filepath.Join(claudeDir, "settings.json"),
		CodexHome:      codexHome,
		ConductorDB:    filepath.Join(home, "Library", "Application Support", "com.conductor.app", "conductor.db"),
		ConductorRoot:  filepath.Join(home, "conductor"),
	}
	if goos == "darwin" {
		r.StateDir = filepath.Join(home, "Library", "Application Support", "Conductor Bridge")
		r.LogDir = filepath.Join(home, "Library", "Logs", "Conductor Bridge")
		return r, nil
	}
	state := env("XDG_STATE_HOME")
	if state == "" || !filepath.IsAbs(state) { // the XDG spec says to ignore relative paths
		state = filepath.Join(home, ".local", "state")
	}
	r.StateDir = filepath.Join(state, "conductor-bridge")
	r.LogDir = filepath.Join(r.StateDir, "logs")
	return r, nil
}
