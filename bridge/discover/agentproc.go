package discover

import (
	"path/filepath"
	"strings"
)

// IsClaudeCommand reports whether a process, by its command name and
// arguments, is a Claude Code agent: for callers that read the process
// table themselves (bridge/proc).
func IsClaudeCommand(comm string, argv []string) bool { return isClaudeCommand(comm, argv) }

// IsCodexCommand reports whether a process is a Codex CLI: the native
// binary (comm "codex"), or the npm wrapper run by a JavaScript runtime.
func IsCodexCommand(comm string, argv []string) bool {
	return isAgentCommand(comm == "codex", argv, isCodexArg)
}

func isCodexArg(a string) bool {
	switch strings.TrimSuffix(filepath.Base(a), ".exe") {
	case "codex", "codex.js":
		return true
	}
	return false
}
