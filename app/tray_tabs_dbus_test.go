//go:build linux

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/dbustest"
)

// TestTabNotifiesOnRealDBus: the real bridge follows two sessions of one
// workspace (two `claude` runs in one project); one tab's finished turn
// produces exactly one notification over a private D-Bus, named by
// workspace, tab and agent, and the menu lists both tabs.
func TestTabNotifiesOnRealDBus(t *testing.T) {
	bus, watcher, notes := trayDesktop(t)
	home := t.TempDir()
	tokyo := newTranscript(t, home, "tokyo")
	const second = "0b0b0b0b-2222-4222-8222-000000000002"
	tab := secondTab(tokyo, second)
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, shortNotifyWindow)
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == tokyo.cwd && w.LastEventID > 0 })

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, item := trayIcon(ctx, t, bus, watcher, p)
	// Both tabs have a line under the workspace.
	if _, err := dbustest.WaitLabels(ctx, conn, item, "2 tabs", "0a0a0a0a · Claude", "0b0b0b0b · Claude"); err != nil {
		t.Fatalf("the menu never listed both tabs: %v", err)
	}

	// The second tab finishes a turn long enough to be worth a note.
	tab.turn("check the login page", "The login page works; the e2e run needs a browser.")
	n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Summary, "finished") })
	if err != nil {
		t.Fatalf("no notification: %v (got %+v)\n%s", err, notes.All(), p.log)
	}
	if n.Summary != "tokyo · 0b0b0b0b · Claude finished" || !strings.Contains(n.Body, "The login page works") {
		t.Errorf("notification: %+v", n)
	}
	// Nothing more comes for it before the first tab's next turn.
	if earlier := notesBeforeMark(t, notes, func() { tokyo.turn("and the signup page?", markWords) }); len(earlier) != 1 {
		t.Errorf("%d notifications for one turn: %s", len(earlier), noteLines(earlier))
	}
}
