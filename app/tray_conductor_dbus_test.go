//go:build linux

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/dbustest"
	"conductorbridge/testkit/fakemodel"
)

// TestBackgroundTabNotifiesOnRealDBus runs real Claude Code in two tabs of
// one Conductor worktree (the database built from schema.sql): the
// background tab's finished turn brings exactly one notification over a
// private D-Bus, named by the workspace, the tab's Conductor title and its
// agent.
func TestBackgroundTabNotifiesOnRealDBus(t *testing.T) {
	bus := dbustest.Start(t)
	notes := bus.Notifications(t)
	e := newTabsEnv(t, [2][]fakemodel.Turn{
		{fakemodel.Reply(fakemodel.Text("A is set up.")), fakemodel.Reply(fakemodel.Text(markWords))},
		{fakemodel.Reply(fakemodel.Text("B checked the login page."))},
	})
	e.demoTabs()
	// Tab A, on screen, worked before the bridge started: history, no note.
	e.open(0, claudetest.Options{SessionID: e.ids[0]})
	e.tabs[0].Send("set up")
	if _, err := e.tabs[0].WaitResult(e.ctx); err != nil {
		t.Fatal(err)
	}
	// Every turn is worth a note here: a fake model's turn takes a second.
	notifyEveryTurn(t, e.home)
	e.p = startBridgeWith(t, e.home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, shortNotifyWindow)
	e.cfg.Addr = strings.TrimPrefix(e.p.base, "http://")
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.ID == "w-demo" && w.LastEventID > 0 })

	e.open(1, claudetest.Options{SessionID: e.ids[1]})
	e.tabs[1].Send("check the login page")
	if _, err := e.tabs[1].WaitResult(e.ctx); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Summary, "finished") })
	if err != nil {
		t.Fatalf("no notification: %v (%d others)\n%s", err, len(notes.All()), e.p.log)
	}
	name := ws.DisplayName
	if name == "" {
		name = ws.Name
	}
	if n.Summary != name+" · Tab B · Claude finished" || !strings.Contains(n.Body, "B checked the login page") {
		t.Errorf("notification %q: %q, want %q", n.Summary, n.Body, name+" · Tab B · Claude finished")
	}
	// Tab A finishes a turn after it.
	earlier := notesBeforeMark(t, notes, func() {
		e.tabs[0].Send("one more")
		if _, err := e.tabs[0].WaitResult(e.ctx); err != nil {
			t.Fatal(err)
		}
	})
	if len(earlier) != 1 {
		t.Errorf("%d notifications for one turn: %s", len(earlier), noteLines(earlier))
	}
}
