package discover

// IsClaudeCommand reports whether a process, by its command name and
// arguments, is a Claude Code agent: for callers that read the process
// table themselves (bridge/proc).
func IsClaudeCommand(comm string, argv []string) bool { return isClaudeCommand(comm, argv) }
