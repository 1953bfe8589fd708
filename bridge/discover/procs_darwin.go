//go:build darwin

package discover

import (
	"context"
	"os"
)

// ClaudeProcesses maps the working directory (symlink-resolved) of every
// running Claude Code agent to its pid. macOS has no /proc and reading
// another process's cwd needs libproc (cgo), so this runs lsof, bounded to
// two seconds. It finds processes whose name starts with "claude": the
// native binary of 2.1.x. Old node-based installs (1.x, 2.0) run as "node"
// and are not found here.
func ClaudeProcesses() (map[string]int, error) {
	// A launchd agent's PATH may lack /usr/sbin, where macOS keeps lsof.
	lsof := "/usr/sbin/lsof"
	if _, err := os.Stat(lsof); err != nil {
		lsof = "lsof"
	}
	return lsofClaudeCwds(context.Background(), lsof)
}
