//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/hooks"
	"conductorbridge/testkit/dbustest"
)

// TestMenuBarOnRealDBus runs the bridge with its menu bar on a private
// D-Bus: a fake tray host reads the real menu over com.canonical.dbusmenu
// and clicks "Paired with Chrome", and a fake notification server receives
// the notification of a real turn, written in Claude Code's format.
func TestMenuBarOnRealDBus(t *testing.T) {
	bus, watcher, notes := trayDesktop(t)
	home := t.TempDir()
	tokyo := newTranscript(t, home, "tokyo")
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, shortNotifyWindow)
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == tokyo.cwd && w.LastEventID > 0 })

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, item := trayIcon(ctx, t, bus, watcher, p)
	props, err := dbustest.ItemProps(conn, item)
	if err != nil {
		t.Fatal(err)
	}
	if title := props["Title"].Value(); title == nil {
		t.Errorf("tray item has no title: %v", props)
	}
	root := menuWith(ctx, t, conn, item, "Paired with Chrome")
	labels := strings.Join(root.Labels(), "\n")
	for _, want := range []string{"Conductor Bridge — ", "tokyo", "Open session viewer", "Notify for this workspace",
		"Notifications", "Start at login", "Open logs", "Quit Conductor Bridge"} {
		if !strings.Contains(labels, want) {
			t.Errorf("menu lacks %q:\n%s", want, labels)
		}
	}
	// The icon shows (fyne can drop one set too early; the shell sets it again).
	for {
		props, err := dbustest.ItemProps(conn, item)
		if err == nil && len(fmt.Sprint(props["IconPixmap"].Value())) > 1000 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the tray icon has no image: %v", props["IconPixmap"])
		case <-time.After(50 * time.Millisecond):
		}
	}
	pair, _ := root.Find("Paired with Chrome")
	if pair.ToggleType != "checkmark" || pair.ToggleState != 0 {
		t.Errorf("Paired with Chrome: %+v", pair)
	}

	// Clicking it pairs the workspace, as the API reports.
	if err := dbustest.Click(conn, item, pair.ID); err != nil {
		t.Fatal(err)
	}
	p.waitFor(func(w apiWorkspace) bool { return w.ID == ws.ID && w.Paired })
	if _, err := dbustest.WaitMenu(ctx, conn, item, func(root dbustest.MenuItem) bool {
		it, ok := root.Find("Paired with Chrome")
		return ok && it.ToggleState == 1
	}); err != nil {
		t.Errorf("the checkbox did not follow: %v", err)
	}

	// A turn long enough to be worth it completes: one notification.
	tokyo.turn("check the login page", "The login page works; the e2e run needs a browser.")
	n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Summary, "finished") })
	if err != nil {
		t.Fatalf("no notification: %v (got %+v)\n%s", err, notes.All(), p.log)
	}
	if n.Summary != "tokyo · Claude finished" || !strings.Contains(n.Body, "The login page works") || !strings.Contains(n.Body, "$") ||
		n.AppName != "Conductor Bridge" {
		t.Errorf("notification: %+v", n)
	}
	if earlier := notesBeforeMark(t, notes, func() { tokyo.turn("one more check", markWords) }); len(earlier) != 1 {
		t.Errorf("%d notifications for one turn: %s", len(earlier), noteLines(earlier))
	}

	// Quit from the menu stops the bridge cleanly (exit 0: the login item
	// would not restart it).
	root, _ = dbustest.ReadMenu(conn, item)
	quit, _ := root.Find("Quit Conductor Bridge")
	if err := dbustest.Click(conn, item, quit.ID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after Quit the bridge exited with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Quit did not stop the bridge")
	}
	// The same shutdown as a signal's (systray ran its onExit on the way).
	if _, err := os.Stat(filepath.Join(p.stateDir(), runFile)); !os.IsNotExist(err) {
		t.Errorf("bridge.json left behind after Quit (%v)", err)
	}
	if last := lastLogLine(t, p.home); last != "Conductor Bridge stopped" {
		t.Errorf("the log ends with %q, not the shutdown", last)
	}
}

// TestNoDBusMeansHeadlessNotAPanic starts the bridge, without --headless,
// where there is no D-Bus session and where there is one with no tray host.
func TestNoDBusMeansHeadlessNotAPanic(t *testing.T) {
	bus := dbustest.Start(t) // a session, but nothing provides a tray host
	for name, env := range map[string][]string{
		"no session":   {"DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/bus"},
		"no tray host": {"DBUS_SESSION_BUS_ADDRESS=" + bus.Address},
	} {
		t.Run(name, func(t *testing.T) {
			p := startBridgeWith(t, t.TempDir(), 0, env)
			waitLogged(t, p, "running without a menu bar")
			if _, err := probeHealth(context.Background(), p.cl()); err != nil {
				t.Fatalf("bridge not serving: %v\n%s", err, p.log)
			}
			p.kill(syscall.SIGTERM)
			out := p.log.String()
			if !strings.Contains(out, "(headless)") || strings.Contains(out, "panic") {
				t.Errorf("output:\n%s", out)
			}
			if p.cmd.ProcessState.ExitCode() != 0 {
				t.Errorf("exit code %d after SIGTERM\n%s", p.cmd.ProcessState.ExitCode(), out)
			}
		})
	}
}

// TestFirstRunOffersHooks: on a first start with Conductor's workspaces,
// the menu offers once to set up the message hooks; nothing in the
// workspaces changes until the person clicks it.
func TestFirstRunOffersHooks(t *testing.T) {
	bus := dbustest.Start(t)
	watcher := bus.Watcher(t)
	home := conductorHome(t, fullSchema, twoWorkspaces, "tokyo", "osaka")
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, item := trayIcon(ctx, t, bus, watcher, p)
	root := menuWith(ctx, t, conn, item, "Set up hooks for 2 workspaces…")
	dirs := []string{filepath.Join(home, "conductor", "workspaces", "shop", "tokyo"), filepath.Join(home, "conductor", "workspaces", "shop", "osaka")}
	for _, d := range dirs {
		if _, err := os.Stat(settingsFile(d)); !os.IsNotExist(err) {
			t.Fatalf("%s written before anyone agreed", settingsFile(d))
		}
	}
	offer, _ := root.Find("Set up hooks for 2 workspaces…")
	var setup dbustest.MenuItem
	for _, c := range offer.Children {
		if strings.HasPrefix(c.Label, "Set up (") {
			setup = c
		}
	}
	if err := dbustest.Click(conn, item, setup.ID); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if on, bin, _ := hooks.Status(settingsFile(d)); on && bin == binary {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("hooks not installed in %s", d)
			}
		}
	}
	if _, err := dbustest.WaitMenu(ctx, conn, item, func(root dbustest.MenuItem) bool {
		_, ok := root.Find("Set up hooks for 2 workspaces…")
		return !ok
	}); err != nil {
		t.Errorf("the offer stays after it was accepted: %v", err)
	}
}

// TestTrayHostAppearingLater: a login item can start before the desktop's
// panel. The bridge starts headless and shows its icon once a tray host
// is there.
func TestTrayHostAppearingLater(t *testing.T) {
	bus := dbustest.Start(t)
	p := startBridgeWith(t, t.TempDir(), 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address})
	if _, err := probeHealth(context.Background(), p.cl()); err != nil {
		t.Fatal(err)
	}
	waitLogged(t, p, "running without a menu bar")
	watcher := bus.Watcher(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, item := trayIcon(ctx, t, bus, watcher, p)
	menuWith(ctx, t, conn, item, "Quit Conductor Bridge")
}

// shortNotifyWindow starts a bridge whose notifications fold for a tenth
// of a second, not 3 s: a note held back for a summary shows soon.
const shortNotifyWindow = "--notify-window=100ms"

// markWords begin the answer of the turn notesBeforeMark has finish.
const markWords = "Mark: nothing after this."

// notesBeforeMark has one more turn finish (mark: its answer begins with
// markWords), in the workspace the notifications under test came from, so
// the tray reads its events after all of theirs, and waits for its
// notification. By then every note those earlier events bring has been
// shown: one still held back for a summary would fold with the mark's,
// which then reads as a summary, not as the mark. It fails unless the
// mark's notification is the last and alone, and returns those before it.
func notesBeforeMark(t *testing.T, notes *dbustest.Notifications, mark func()) []dbustest.Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mark()
	folded := regexp.MustCompile(`^\d+ agents `)
	isMark := func(n dbustest.Notification) bool {
		return strings.Contains(n.Body, markWords) && !folded.MatchString(n.Summary)
	}
	if _, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return isMark(n) || folded.MatchString(n.Summary) }); err != nil {
		t.Fatalf("the mark's turn was never noted: %v (got %s)", err, noteLines(notes.All()))
	}
	all := notes.All()
	if !isMark(all[len(all)-1]) {
		t.Fatalf("the mark's turn is not the last notification, alone: %s", noteLines(all))
	}
	return all[:len(all)-1]
}

// notifyEveryTurn sets the home's tray to notify every turn, however short:
// a fake model's turn takes a second, under the default 30 s threshold.
func notifyEveryTurn(t testing.TB, home string) {
	t.Helper()
	state := filepath.Join(home, ".local", "state", "conductor-bridge")
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "tray.json"), []byte(`{"notifications":"on","min_turn_seconds":0}`), 0o600); err != nil {
		t.Fatal(err)
	}
}
