package codex

import (
	"path/filepath"
	"strings"

	"conductorbridge/bridge/proc"
)

// IsProcess reports whether a process is a Codex CLI: the native binary
// (comm "codex"), or the npm wrapper run by a JavaScript runtime.
func (Agent) IsProcess(comm string, argv []string) bool {
	return proc.Runs(comm == "codex", argv, isArg)
}

// SessionArg is the thread a Codex command line resumes (`codex resume
// <id>`, `codex exec … resume <id>`), "" if none.
func (Agent) SessionArg(argv []string) string { return proc.CodexThreadArg(argv) }

// Serves reports whether a Codex command line runs a server whose threads
// may be in any directory (`codex app-server`, `codex mcp-server`, the old
// `codex proto`), the way a UI drives Codex: its own directory says
// nothing of where it writes.
func (Agent) Serves(argv []string) bool {
	for _, a := range argv {
		switch a {
		case "app-server", "mcp-server", "proto":
			return true
		}
	}
	return false
}

// HoldsDirectory: a Codex run that names no thread (a new `codex`
// session) holds one of its directory's Codex sessions, which one the
// process table cannot say.
func (Agent) HoldsDirectory() {}

func isArg(a string) bool {
	switch strings.TrimSuffix(filepath.Base(a), ".exe") {
	case "codex", "codex.js":
		return true
	}
	return false
}
