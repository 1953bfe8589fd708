// Package codextest runs the real Codex CLI in tests: it finds an installed
// release, gives it a fake, deterministic CODEX_HOME whose config.toml
// points at a fake Responses API (testkit/fakemodel), and runs `codex exec`
// (and `codex exec resume`) with flags that let its shell tool run in a
// temp dir. What every agent shares (finding a release, the bare
// environment, the process group) is testkit/agenttest's.
package codextest

import (
	"testing"

	"conductorbridge/testkit/agenttest"
)

// Latest is the Codex release installed on PATH in the dev image.
const Latest = "0.169.0"

// Legacy is the 2025 release kept side by side (/opt/codex-0.47.0), whose
// record format differs.
const Legacy = "0.47.0"

// Agent is Codex as agenttest finds it: `codex` on PATH, other releases
// under /opt/codex-<version>, or $CODEX_BIN_<version>.
func Agent() agenttest.Agent {
	return agenttest.Agent{Command: "codex", Package: "@openai/codex",
		Prefix: "/opt/codex-", EnvPrefix: "CODEX_BIN_", Latest: Latest}
}

// Find returns the path of Codex release version (Latest when empty), or
// skips the test (fails it under CI=true) when it is not installed.
func Find(t testing.TB, version string) string {
	t.Helper()
	return Agent().Find(t, version)
}
