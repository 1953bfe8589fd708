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
// binary (comm "codex"), or the npm wrapper run by node.
func IsCodexCommand(comm string, argv []string) bool {
	if comm == "codex" {
		return true
	}
	if len(argv) == 0 {
		return false
	}
	if isCodexArg(argv[0]) {
		return true
	}
	switch strings.TrimSuffix(filepath.Base(argv[0]), ".exe") {
	case "node", "nodejs", "bun":
	default:
		return false
	}
	for _, a := range argv[1:] {
		if !strings.HasPrefix(a, "-") {
			return isCodexArg(a)
		}
	}
	return false
}

func isCodexArg(a string) bool {
	switch strings.TrimSuffix(filepath.Base(a), ".exe") {
	case "codex", "codex.js":
		return true
	}
	return false
}
