package discover

import (
	"reflect"
	"testing"
)

func TestIsClaudeCommand(t *testing.T) {
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
		{"", nil, false},
		{"", []string{""}, false},
	}
	for _, tt := range tests {
		if got := isClaudeCommand(tt.comm, tt.argv); got != tt.want {
			t.Errorf("isClaudeCommand(%q, %q) = %v, want %v", tt.comm, tt.argv, got, tt.want)
		}
	}
}

func TestParseLsofCwds(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want map[string]int
	}{
		{"none", "", map[string]int{}},
		{"two", "p101\nfcwd\nn/Users/me/a\np102\nfcwd\nn/Users/me/b\n", map[string]int{"/Users/me/a": 101, "/Users/me/b": 102}},
		{"shared cwd keeps the lowest pid", "p300\nfcwd\nn/w\np200\nfcwd\nn/w\np250\nfcwd\nn/w\n", map[string]int{"/w": 200}},
		{"no f field", "p7\nn/w\n", map[string]int{"/w": 7}},
		{"other descriptors ignored", "p7\nftxt\nn/usr/bin/claude\nfcwd\nn/w\n", map[string]int{"/w": 7}},
		{"garbage", "\nzzz\npnotanumber\nfcwd\nn/x\np8\nfcwd\nn/y path\n", map[string]int{"/y path": 8}},
	}
	for _, tt := range tests {
		if got := parseLsofCwds([]byte(tt.out)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
