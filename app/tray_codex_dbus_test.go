//go:build linux

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/dbustest"
	"conductorbridge/testkit/fakemodel"
)

// TestCodexTabInTheMenuBar: a real Codex run beside a Claude Code session
// in one folder is a second tab of that workspace in the menu, with its
// state, and its finished turn brings exactly one notification over a
// private D-Bus, named by workspace, tab and agent, with its cost.
func TestCodexTabInTheMenuBar(t *testing.T) {
	codexBin := codextest.Find(t, codextest.Latest)
	bus, watcher, notes := trayDesktop(t)
	home := t.TempDir()
	tokyo := newTranscript(t, home, "tokyo")
	tokyo.assistant("end_turn", map[string]any{"type": "text", "text": "Claude is idle here."})
	// Every turn is worth a note here: the Codex turn takes a second.
	notifyEveryTurn(t, home)
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, shortNotifyWindow)
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == tokyo.cwd && w.LastEventID > 0 })

	oai := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("Codex checked the login page.")))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	co := codextest.Options{Bin: codexBin, BaseURL: oai.URL(), Home: home, Dir: tokyo.cwd, Prompt: "check the login page"}
	if _, err := codextest.Run(ctx, co); err != nil {
		t.Fatal(err)
	}
	thread := codextest.ThreadID(codextest.Rollouts(t, co.CodexHome())[0])

	n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Summary, "finished") })
	if err != nil {
		t.Fatalf("no notification: %v (got %+v)\n%s", err, notes.All(), p.log)
	}
	if n.Summary != "tokyo · "+thread[:8]+" · Codex finished" || !strings.Contains(n.Body, "Codex checked the login page") || !strings.Contains(n.Body, "$") {
		t.Errorf("notification: %+v", n)
	}
	conn, item := trayIcon(ctx, t, bus, watcher, p)
	if _, err := dbustest.WaitLabels(ctx, conn, item, "2 tabs", thread[:8]+" · Codex — idle", " · Claude"); err != nil {
		t.Fatalf("the menu never listed the Codex tab: %v", err)
	}
	// The Claude tab finishes a turn after it: the Codex turn's events
	// have all been read and noted by the time that one is.
	if earlier := notesBeforeMark(t, notes, func() { tokyo.turn("and the signup page?", markWords) }); len(earlier) != 1 {
		t.Errorf("%d notifications for one turn: %s", len(earlier), noteLines(earlier))
	}
}
