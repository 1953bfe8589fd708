//go:build darwin

package discover

import (
	"fmt"

	"conductorbridge/bridge/proc"
)

// ClaudeProcesses maps the working directory (symlink-resolved) of every
// running Claude Code agent to its pid, from the process table read
// in-process (bridge/proc: sysctl for names and arguments, proc_info for
// the directory). Nothing forks, so a scan may run on a timer; lsof
// (lsof.go) stays only as an on-demand tool. Node-based 1.x and 2.0
// installs are found by their arguments, as on Linux.
func ClaudeProcesses() (map[string]int, error) {
	ps, err := proc.List()
	if err != nil {
		return nil, fmt.Errorf("list claude processes: %w", err)
	}
	m := make(map[string]int)
	for _, p := range ps {
		if !isClaudeCommand(p.Comm, p.Args) {
			continue
		}
		if cwd, err := proc.Cwd(p.PID); err == nil {
			addProc(m, cwd, p.PID)
		}
	}
	return resolveProcCwds(m), nil
}
