//go:build linux

package discover

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ClaudeProcesses maps the working directory (symlink-resolved) of every
// running Claude Code agent to its pid, from /proc. A process that exits or
// cannot be read while the scan runs is skipped.
func ClaudeProcesses() (map[string]int, error) {
	return procClaudeCwds("/proc")
}

// procClaudeCwds is ClaudeProcesses over a proc filesystem at procRoot.
func procClaudeCwds(procRoot string) (map[string]int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("list claude processes: %w", err)
	}
	m := make(map[string]int)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		dir := filepath.Join(procRoot, e.Name())
		comm, _ := os.ReadFile(filepath.Join(dir, "comm"))
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		argv := strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00")
		if !isClaudeCommand(strings.TrimSpace(string(comm)), argv) {
			continue
		}
		// The kernel gives the resolved path, or "… (deleted)" when the
		// directory is gone; another user's process refuses (EACCES).
		cwd, err := os.Readlink(filepath.Join(dir, "cwd"))
		if err != nil || !filepath.IsAbs(cwd) || strings.HasSuffix(cwd, " (deleted)") {
			continue
		}
		addProc(m, cwd, pid)
	}
	return resolveProcCwds(m), nil
}
