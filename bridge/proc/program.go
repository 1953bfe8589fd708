package proc

import (
	"path/filepath"
	"strings"
)

// Runs reports whether a process runs a program, by the rule every agent's
// process follows: its command name says so (named), or its first
// argument is the program (a script, a path), or its first argument is a
// JavaScript runtime (node, bun, deno) and the first non-flag argument
// after it is the program. isProgram tells an argument that is the
// program. Arguments after the first are looked at only for a runtime, so
// "grep <name>" runs no agent.
func Runs(named bool, argv []string, isProgram func(arg string) bool) bool {
	if named {
		return true
	}
	if len(argv) == 0 {
		return false
	}
	if isProgram(argv[0]) {
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
		return isProgram(a)
	}
	return false
}
