package claude

import (
	"path/filepath"
	"strings"

	"conductorbridge/bridge/proc"
)

// IsProcess reports whether a process is a Claude Code agent, from its
// command name (comm: the executable's base name, cut to 15 bytes on
// Linux) and its arguments. 2.1.x is a native binary named claude
// (claude.exe in the npm package's bin/); 1.x and 2.0 run as node
// …/@anthropic-ai/claude-code/cli.js, or through a script named claude.
func (Agent) IsProcess(comm string, argv []string) bool {
	return proc.Runs(isName(comm), argv, isArg)
}

// SessionArg is the session a Claude Code command line names (--resume,
// --session-id), "" if none.
func (Agent) SessionArg(argv []string) string { return proc.SessionArg(argv) }

func isName(name string) bool {
	switch name {
	case "claude", "claude.exe", "claude-code":
		return true
	}
	return false
}

func isArg(arg string) bool {
	return isName(filepath.Base(arg)) || strings.Contains(arg, "/claude-code/")
}
