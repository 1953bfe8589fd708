package discover

import (
	"path/filepath"
	"strings"
)

// isClaudeCommand reports whether a process is a Claude Code agent, from its
// command name (comm: the executable's base name, cut to 15 bytes on Linux)
// and its arguments. 2.1.x is a native binary named claude (claude.exe in
// the npm package's bin/); 1.x and 2.0 run as node …/@anthropic-ai/
// claude-code/cli.js, or through a script named claude. Arguments after the
// first are looked at only for an interpreter, so "grep claude" is not an
// agent.
func isClaudeCommand(comm string, argv []string) bool {
	return isAgentCommand(isClaudeName(comm), argv, isClaudeArg)
}

// isAgentCommand is the rule both agents' processes follow: the command
// name says it (named), or the first argument is the agent (a script, a
// path), or the first argument is a JavaScript runtime and the first
// non-flag argument after it is the agent.
func isAgentCommand(named bool, argv []string, isArg func(string) bool) bool {
	if named {
		return true
	}
	if len(argv) == 0 {
		return false
	}
	if isArg(argv[0]) {
		return true
	}
	switch strings.TrimSuffix(filepath.Base(argv[0]), ".exe") {
	case "node", "nodejs", "bun", "deno":
	default:
		return false
	}
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") {
			continue // an interpreter flag: the script comes after
		}
		return isArg(a)
	}
	return false
}

func isClaudeName(name string) bool {
	switch name {
	case "claude", "claude.exe", "claude-code":
		return true
	}
	return false
}

func isClaudeArg(arg string) bool {
	return isClaudeName(filepath.Base(arg)) || strings.Contains(arg, "/claude-code/")
}

// addProc records pid as the claude process working in cwd. When several
// share a directory (a wrapper and the binary it started), the lowest pid
// is kept, so the answer does not flip between scans.
func addProc(m map[string]int, cwd string, pid int) {
	if cwd == "" || pid <= 0 {
		return
	}
	if old, ok := m[cwd]; ok && old < pid {
		return
	}
	m[cwd] = pid
}

// resolveProcCwds re-keys a cwd → pid map by symlink-resolved directory,
// the form Workspace.Directory has.
func resolveProcCwds(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for cwd, pid := range m {
		if r, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = r
		}
		addProc(out, cwd, pid)
	}
	return out
}
