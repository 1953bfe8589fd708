// Package proc reads the operating system's process table in-process:
// each process's pid, command name and arguments, and on demand its
// working directory. Linux reads /proc; macOS asks sysctl (kern.proc.all,
// kern.procargs2) and proc_info, with no cgo and no child process, so
// reading the table on a timer forks nothing. Only arguments are read:
// never another process's environment.
package proc

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Process is one entry of the process table.
type Process struct {
	PID  int
	Comm string   // the executable's short name (Linux cuts it to 15 bytes, macOS to 16)
	Args []string // nil when the process cannot be read (another user's, or gone)
}

// SessionArg returns the Claude Code session a command line names:
// `--resume <id>`, `--resume=<id>`, `-r <id>`, `--session-id <id>` or
// `--session-id=<id>`. "" when it names none (a bare --resume opens a
// picker and names nothing).
func SessionArg(args []string) string {
	for i, a := range args {
		for _, flag := range []string{"--resume", "--session-id"} {
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				return sessionID(v)
			}
		}
		switch a {
		case "--resume", "-r", "--session-id":
			if i+1 < len(args) {
				if id := sessionID(args[i+1]); id != "" {
					return id
				}
			}
		}
	}
	return ""
}

// sessionID returns v when it looks like a session id (a UUID's
// characters), "" otherwise: `--resume` may be followed by a prompt.
func sessionID(v string) string {
	if len(v) < 8 || len(v) > 64 {
		return ""
	}
	for _, c := range v {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == '-') {
			return ""
		}
	}
	return v
}

// PromptToolStdio reports whether a Claude Code command line sends its
// permission requests over stdio (--permission-prompt-tool stdio), as
// Conductor launches every chat tab.
func PromptToolStdio(args []string) bool {
	for i, a := range args {
		if a == "--permission-prompt-tool=stdio" || (a == "--permission-prompt-tool" && i+1 < len(args) && args[i+1] == "stdio") {
			return true
		}
	}
	return false
}

// CodexThreadArg returns the thread a Codex command line resumes
// (`codex resume <id>`, `codex exec … resume <id> …`), "" when it names
// none (a new session, `--last`).
func CodexThreadArg(args []string) string {
	for i, a := range args {
		if a == "resume" && i+1 < len(args) {
			for _, next := range args[i+1:] {
				if strings.HasPrefix(next, "-") {
					continue // an option of resume's
				}
				return sessionID(next)
			}
		}
	}
	return ""
}

// maxAncestors bounds the walk up the process tree: a hook runs a
// shell or two below its agent, never dozens.
const maxAncestors = 8

// Ancestor walks up from pid (itself included) to the first process isAgent
// accepts, by its command name and arguments, and returns its pid; 0 when
// none is found within a few generations or the table cannot be read. A
// hook relay finds its agent this way: Claude Code may run a hook's
// command through a shell, so the relay's parent is not always the agent.
func Ancestor(pid int, isAgent func(comm string, args []string) bool) int {
	for range maxAncestors {
		if pid <= 1 {
			return 0
		}
		p, ppid, err := Parent(pid)
		if err != nil {
			return 0
		}
		if isAgent(p.Comm, p.Args) {
			return pid
		}
		pid = ppid
	}
	return 0
}

// parseStat reads the command name and the parent pid from a Linux
// /proc/<pid>/stat line.
func parseStat(b []byte) (Process, int, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Process{}, 0, fmt.Errorf("unreadable stat line")
	}
	fields := strings.Fields(string(b[end+1:]))
	if len(fields) < 2 {
		return Process{}, 0, fmt.Errorf("stat line too short")
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return Process{}, 0, fmt.Errorf("parent pid %q: %w", fields[1], err)
	}
	return Process{Comm: string(b[open+1 : end])}, ppid, nil
}
