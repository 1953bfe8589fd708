//go:build !linux && !darwin

package discover

// ClaudeProcesses finds no processes on systems other than Linux and macOS:
// workspaces are still listed, only without a pid.
func ClaudeProcesses() (map[string]int, error) {
	return map[string]int{}, nil
}
