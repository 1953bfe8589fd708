// Package opencodetest runs the real OpenCode CLI (npm opencode-ai) in
// tests: it finds the pinned release, gives it a throwaway home whose
// opencode.json points a provider at a fake model server
// (testkit/fakemodel, OpenAI's Responses API through OpenCode's bundled
// @ai-sdk/openai), and runs `opencode run` and `opencode acp` there. What
// every agent shares (finding a release, the bare environment, the process
// group) is testkit/agenttest's.
package opencodetest

import (
	"testing"

	"conductorbridge/testkit/agenttest"
)

// Version is the release the tests are pinned to (.ci/run installs it in
// /opt/opencode-<Version>).
const Version = "1.18.33"

// Agent is OpenCode as agenttest finds it: /opt/opencode-<version>,
// `opencode` on PATH, or $OPENCODE_BIN_<version>.
func Agent() agenttest.Agent {
	return agenttest.Agent{Command: "opencode", Package: "opencode-ai",
		Prefix: "/opt/opencode-", EnvPrefix: "OPENCODE_BIN_", Latest: Version}
}

// Find returns the path of the pinned release, or skips the test (fails
// it under CI=true) when it is not installed.
func Find(t testing.TB) string {
	t.Helper()
	return Agent().Find(t, Version)
}
