package codex

import "testing"

func TestIsProcess(t *testing.T) {
	for _, tt := range []struct {
		comm string
		argv []string
		want bool
	}{
		{"codex", []string{"/usr/lib/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex", "exec"}, true},
		{"node", []string{"node", "/usr/bin/codex", "resume", "x"}, true},
		{"node", []string{"/usr/bin/node", "--no-warnings", "/opt/codex/bin/codex.js"}, true},
		{"MainThread", []string{"/usr/local/bin/codex"}, true},
		{"deno", []string{"deno", "--allow-all", "/x/bin/codex.js"}, true}, // the runtimes Claude's rule knows
		{"node", []string{"node", "--inspect"}, false},
		{"node", []string{"node", "/usr/bin/claude"}, false},
		{"codex-helper", []string{"codex-helper"}, false},
		{"vim", []string{"vim", "codex"}, false},
		{"", nil, false},
	} {
		if got := (Agent{}).IsProcess(tt.comm, tt.argv); got != tt.want {
			t.Errorf("IsProcess(%q, %q) = %v", tt.comm, tt.argv, got)
		}
	}
}
