//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/dbustest"
)

// TestCursorAndOpenCodeTabsNotifyWithTheirAgent runs the bridge over a
// Conductor database (the schema's first shape) with a Cursor tab and an
// OpenCode ("acp") tab whose OpenCode session is not known, both read from
// the rows Conductor writes, and a fake notification server on a private
// D-Bus: each tab's finished turn brings one notification naming the
// workspace, the tab and its agent ("… · Fix CSS · Cursor finished").
func TestCursorAndOpenCodeTabsNotifyWithTheirAgent(t *testing.T) {
	bus, watcher, notes := trayDesktop(t) // a tray host: without one the bridge runs headless
	home := t.TempDir()
	dir := filepath.Join(home, "work", "demo")
	must(t, os.MkdirAll(dir, 0o755))
	dbPath := filepath.Join(home, "Library", "Application Support", "com.conductor.app", "conductor.db")
	must(t, os.MkdirAll(filepath.Dir(dbPath), 0o755))
	shape := conductordb.Shapes(t)[0]
	w, err := conductordb.Create(dbPath, shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	must(t, w.AddTab(shape, "w-agents", "s-cursor", "cursor", "Fix CSS"))
	must(t, w.AddTab(shape, "w-agents", "s-oc", "acp", "Tidy docs"))
	must(t, w.Exec("INSERT INTO repos (id, name, root_path) VALUES ('r1', 'demo', ?)", dir))
	must(t, w.Exec("UPDATE workspaces SET repository_id = 'r1', workspace_path = ?, branch = 'me/agents' WHERE id = 'w-agents'", dir))

	// A turn as Conductor records it for any agent: the typed prompt,
	// then Claude-style frames, the result's cost and duration last.
	turn := func(tab, prompt, answer string) {
		t.Helper()
		frame := func(v any) string {
			b, err := json.Marshal(v)
			must(t, err)
			return string(b)
		}
		for _, row := range [][2]string{
			{"user", prompt},
			{"assistant", frame(map[string]any{"type": "assistant", "message": map[string]any{"id": "msg-" + tab, "role": "assistant",
				"model": "fake", "content": []any{map[string]any{"type": "text", "text": answer}},
				"usage": map[string]any{"input_tokens": 900, "output_tokens": 30}}})},
			{"assistant", frame(map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 42000, "total_cost_usd": 0.12})},
		} {
			if _, err := w.Message(tab, row[0], row[1]); err != nil {
				t.Fatal(err)
			}
		}
	}

	notifyEveryTurn(t, home)
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, "--opencode-db", filepath.Join(home, "no-opencode.db"))
	ws := p.waitFor(func(a apiWorkspace) bool { return a.ID == "w-agents" })
	name := ws.DisplayName
	if name == "" {
		name = ws.Name
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// The menu lists the workspace: from then on what it streams is news.
	conn, item := trayIcon(ctx, t, bus, watcher, p)
	if _, err := dbustest.WaitMenu(ctx, conn, item, func(root dbustest.MenuItem) bool {
		return strings.Contains(strings.Join(root.Labels(), "\n"), name)
	}); err != nil {
		t.Fatalf("the menu never listed %q: %v", name, err)
	}
	sse := openStream(t, p, ws.ID, 0)
	for i, tt := range []struct{ tab, answer, want string }{
		{"s-cursor", "The buttons line up now.", name + " · Fix CSS · Cursor finished"},
		{"s-oc", "The docs are tidy.", name + " · Tidy docs · OpenCode finished"},
	} {
		turn(tt.tab, "please", tt.answer)
		sse.until(t, 30*time.Second, func(evs []event.Event) bool { return countType(evs, tt.tab, event.TurnComplete) == 1 })
		n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Body, tt.answer) })
		if err != nil {
			t.Fatalf("no notification for %s: %v (got %+v)\n%s", tt.tab, err, notes.All(), p.log)
		}
		if n.Summary != tt.want || !strings.Contains(n.Body, "$0.12 · 42s") {
			t.Errorf("notification for %s: %q | %q, want %q", tt.tab, n.Summary, n.Body, tt.want)
		}
		if all := notes.All(); len(all) != i+1 {
			t.Errorf("%d notifications after %d turns: %+v", len(all), i+1, all)
		}
	}
}
