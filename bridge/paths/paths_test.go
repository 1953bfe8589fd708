package paths

import "testing"

func TestDefault(t *testing.T) {
	tests := []struct {
		name, goos            string
		env                   map[string]string
		projects, state, logs string
	}{
		{"linux", "linux", nil, "/h/.claude/projects", "/h/.local/state/conductor-bridge", "/h/.local/state/conductor-bridge/logs"},
		{"linux xdg", "linux", map[string]string{"XDG_STATE_HOME": "/x"}, "/h/.claude/projects", "/x/conductor-bridge", "/x/conductor-bridge/logs"},
		{"linux relative xdg ignored", "linux", map[string]string{"XDG_STATE_HOME": "rel"}, "/h/.claude/projects", "/h/.local/state/conductor-bridge", "/h/.local/state/conductor-bridge/logs"},
		{"claude config dir", "linux", map[string]string{"CLAUDE_CONFIG_DIR": "/c"}, "/c/projects", "/h/.local/state/conductor-bridge", "/h/.local/state/conductor-bridge/logs"},
		{"darwin", "darwin", nil, "/h/.claude/projects", "/h/Library/Application Support/Conductor Bridge", "/h/Library/Logs/Conductor Bridge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Default("/h", tt.goos, func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if r.ClaudeProjects != tt.projects || r.StateDir != tt.state || r.LogDir != tt.logs {
				t.Errorf("got projects=%q state=%q logs=%q", r.ClaudeProjects, r.StateDir, r.LogDir)
			}
			if r.ConductorDB != "/h/Library/Application Support/com.conductor.app/conductor.db" {
				t.Errorf("conductor db = %q", r.ConductorDB)
			}
		})
	}
	for env, want := range map[string]string{"": "/h/.codex", "/cx": "/cx", "relative": "/h/.codex"} {
		r, _ := Default("/h", "linux", func(k string) string {
			if k == "CODEX_HOME" {
				return env
			}
			return ""
		})
		if r.CodexHome != want {
			t.Errorf("CODEX_HOME=%q: codex home %q, want %q", env, r.CodexHome, want)
		}
	}
	if _, err := Default("", "linux", func(string) string { return "" }); err == nil {
		t.Error("empty home: want error")
	}
}
