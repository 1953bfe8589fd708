package claude

import "testing"

func TestIsProcess(t *testing.T) {
	tests := []struct {
		comm string
		argv []string
		want bool
	}{
		{"claude", []string{"claude", "--resume", "x"}, true},
		{"claude.exe", []string{"/usr/lib/node_modules/@anthropic-ai/claude-code/bin/claude.exe"}, true},
		{"MainThread", []string{"/Users/me/.local/bin/claude"}, true},
		{"node", []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "-p", "x"}, true},
		{"node", []string{"/usr/bin/node", "--no-warnings", "--enable-source-maps", "/opt/cc/node_modules/@anthropic-ai/claude-code/cli.js"}, true},
		{"node", []string{"node", "/home/me/.npm-global/bin/claude"}, true},
		{"bun", []string{"bun", "/x/claude-code/cli.js"}, true},
		{"claude-code", []string{"claude-code"}, true},
		{"node", []string{"node", "server.js"}, false},
		{"node", []string{"node", "--inspect"}, false},
		{"grep", []string{"grep", "claude"}, false},
		{"vim", []string{"vim", "/x/claude-code/cli.js"}, false},
		{"bash", []string{"/bin/bash", "-c", "claude"}, false},
		{"claudette", []string{"claudette"}, false},
		{"conductor-bridg", []string{"/usr/bin/conductor-bridge", "hook", "stop"}, false},
		{"codex", []string{"/usr/bin/codex"}, false},
		{"", nil, false},
		{"", []string{""}, false},
	}
	for _, tt := range tests {
		if got := (Agent{}).IsProcess(tt.comm, tt.argv); got != tt.want {
			t.Errorf("IsProcess(%q, %q) = %v, want %v", tt.comm, tt.argv, got, tt.want)
		}
	}
}
