package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookPlacedByConductorWorkspacePath runs the hook relay as Claude
// Code runs it under Conductor, from a session the bridge does not follow
// yet (its id unknown, no transcript named), working in a subfolder of the
// workspace or outside it: only CONDUCTOR_WORKSPACE_PATH in the hook's
// environment says where the call comes from. With it, the Notification
// reaches the workspace (needs_input, with the call's reason); without it,
// the call is placed nowhere.
func TestHookPlacedByConductorWorkspacePath(t *testing.T) {
	home := t.TempDir()
	tokyo := newTranscript(t, home, "tokyo")
	tokyo.assistant("end_turn", map[string]any{"type": "text", "text": "Idle here."})
	sub := filepath.Join(tokyo.cwd, "web", "src")
	elsewhere := t.TempDir()
	for _, d := range []string{sub, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	session := strings.TrimSuffix(filepath.Base(tokyo.path), ".jsonl")
	conductorDB(t, home, `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'shop', '`+tokyo.cwd+`');
INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, branch, state, active_session_id)
	VALUES ('w-tokyo', 'r1', 'tokyo', '`+tokyo.cwd+`', 'me/tokyo', 'ready', 's-1');
INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id) VALUES
	('s-1', 'w-tokyo', 'idle', 'claude', 'Tab 1', '`+session+`');`)
	p := startBridgeProc(t, home, 0)
	p.waitFor(func(w apiWorkspace) bool { return w.ID == "w-tokyo" && w.LastEventID > 0 })

	for _, tc := range []struct {
		name, cwd, env, reason string
		placed                 bool
	}{
		{"outside, no CONDUCTOR_WORKSPACE_PATH", elsewhere, "", "idle_prompt", false},
		{"subfolder, no CONDUCTOR_WORKSPACE_PATH", sub, "", "idle_prompt", false},
		{"subfolder", sub, tokyo.cwd, "idle_prompt", true},
		{"outside", elsewhere, tokyo.cwd, "permission_prompt", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A session that just started: an id the bridge has not seen.
			in := `{"session_id":"dddddddd-4444-4444-8444-00000000000d","hook_event_name":"Notification","cwd":"` + tc.cwd +
				`","notification_type":"` + tc.reason + `","message":"Claude needs you"}`
			cmd := exec.Command(binary, "hook", "notification", "--home", home)
			cmd.Dir, cmd.Stdin = tc.cwd, strings.NewReader(in)
			cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME=", "CONDUCTOR_WORKSPACE_PATH="+tc.env)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("hook: %v\n%s", err, out.String())
			}
			// The relay returns once the bridge has applied the call.
			w := p.waitFor(func(w apiWorkspace) bool { return w.ID == "w-tokyo" })
			placed := w.Status == "needs_input" && len(w.Sessions) > 0 && w.Sessions[0].Reason == tc.reason
			if placed != tc.placed {
				t.Errorf("placed %v, want %v: status %s, sessions %+v", placed, tc.placed, w.Status, w.Sessions)
			}
		})
	}
}
