//go:build linux

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/dbustest"
)

// TestQuestionsInTheListingAndTheMenuBar: two tabs of one Conductor
// workspace come to need the person, each its own way — Conductor marks
// one `needs_user_input` in its database, the other calls Conductor's
// AskUserQuestion tool in its transcript. Both are needs_input with reason
// question in /api/workspaces, the menu bar says so, and each brings one
// notification naming its tab, over a private D-Bus.
func TestQuestionsInTheListingAndTheMenuBar(t *testing.T) {
	bus, watcher, notes := trayDesktop(t)
	home := t.TempDir()
	tokyo := newTranscript(t, home, "tokyo")
	tokyo.assistant("end_turn", map[string]any{"type": "text", "text": "Ready."})
	first := strings.TrimSuffix(filepath.Base(tokyo.path), ".jsonl")
	const second = "0b0b0b0b-2222-4222-8222-000000000002"
	tab := secondTab(tokyo, second)
	tab.assistant("end_turn", map[string]any{"type": "text", "text": "Ready too."})
	db := conductorDB(t, home, fmt.Sprintf(`
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'web', '%[1]s');
INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, branch, state, active_session_id)
	VALUES ('w-tokyo', 'r1', 'tokyo', '%[1]s', 'me/tokyo', 'ready', 's-a');
INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden)
	VALUES ('s-a', 'w-tokyo', 'idle', 'claude', 'Login form', '%[2]s', 0),
	       ('s-b', 'w-tokyo', 'idle', 'claude', 'Pick a colour', '%[3]s', 0);`, tokyo.cwd, first, second))
	notifyEveryTurn(t, home)
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, shortNotifyWindow)
	p.waitFor(func(w apiWorkspace) bool { return w.ID == "w-tokyo" && len(w.Sessions) == 2 && w.Status == "idle" })

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, item := trayIcon(ctx, t, bus, watcher, p)

	// Conductor asks in its own UI; the other tab asks through the tool.
	if _, err := db.Exec(`UPDATE sessions SET status = 'needs_user_input' WHERE id = 's-a'`); err != nil {
		t.Fatal(err)
	}
	tab.prompt("pick a colour for the button")
	tab.assistant("tool_use", map[string]any{"type": "tool_use", "id": "toolu_ask", "name": "mcp__conductor__AskUserQuestion",
		"input": map[string]any{"question": "Blue or green?"}})

	w := p.waitFor(func(w apiWorkspace) bool {
		if w.ID != "w-tokyo" || w.Status != "needs_input" || w.Reason != "question" {
			return false
		}
		asking := 0
		for _, s := range w.Sessions {
			if s.Status == "needs_input" && s.Reason == "question" {
				asking++
			}
		}
		return asking == 2
	})
	t.Logf("listing: %+v", w.Sessions)

	if _, err := dbustest.WaitLabels(ctx, conn, item, "Login form · Claude — needs input", "Pick a colour · Claude — needs input"); err != nil {
		t.Fatalf("the menu never showed both questions: %v", err)
	}
	for _, title := range []string{"Login form", "Pick a colour"} {
		n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Summary, title) })
		if err != nil {
			t.Fatalf("no notification for %q: %v (got %+v)\n%s", title, err, notes.All(), p.log)
		}
		if !strings.HasSuffix(n.Summary, "needs your input") || n.Body != "Claude asks you a question" {
			t.Errorf("notification for %q: %+v", title, n)
		}
	}
	// The first tab then finishes a turn.
	if earlier := notesBeforeMark(t, notes, func() { tokyo.turn("never mind, carry on", markWords) }); len(earlier) != 2 {
		t.Errorf("%d notifications for two questions: %s", len(earlier), noteLines(earlier))
	}
}
