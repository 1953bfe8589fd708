// Package claudetest runs the real Claude Code binary in tests: it finds
// an installed version, gives it a fake, deterministic home and
// environment pointed at a fake model server, and runs it either once
// (-p) or as a long-lived stream-json process like Conductor does. What
// every agent shares (finding a release, the bare environment, the process
// group) is testkit/agenttest's.
package claudetest

import (
	"testing"

	"conductorbridge/testkit/agenttest"
)

// Latest is the Claude Code version installed on PATH in the dev image.
const Latest = "2.1.328"

// Agent is Claude Code as agenttest finds it: `claude` on PATH, other
// releases under /opt/cc-<version>, or $CLAUDE_BIN_<version>.
func Agent() agenttest.Agent {
	return agenttest.Agent{Command: "claude", Package: "@anthropic-ai/claude-code",
		Prefix: "/opt/cc-", EnvPrefix: "CLAUDE_BIN_", Latest: Latest}
}

// Find returns the path of Claude Code version (Latest when empty), or
// skips the test (fails it under CI=true) when it is not installed.
func Find(t testing.TB, version string) string {
	t.Helper()
	return Agent().Find(t, version)
}
