//go:build linux

package main

import (
	"context"
	"testing"

	"github.com/godbus/dbus/v5"

	"conductorbridge/testkit/dbustest"
)

// trayDesktop is a private session bus with what a desktop provides on
// it: a fake tray host and a fake notification server.
func trayDesktop(t *testing.T) (*dbustest.Bus, *dbustest.Watcher, *dbustest.Notifications) {
	t.Helper()
	bus := dbustest.Start(t)
	return bus, bus.Watcher(t), bus.Notifications(t)
}

// trayIcon waits until the bridge p has registered its tray icon with the
// fake tray host w, and returns a connection to the bus to read its menu.
func trayIcon(ctx context.Context, t *testing.T, bus *dbustest.Bus, w *dbustest.Watcher, p *bridgeProc) (*dbus.Conn, dbustest.Item) {
	t.Helper()
	item, err := w.WaitItem(ctx)
	if err != nil {
		t.Fatalf("no tray icon: %v\n%s", err, p.log)
	}
	return bus.Conn(t), item
}

// menuWith waits until item's menu has an entry labelled label, and
// returns the menu.
func menuWith(ctx context.Context, t *testing.T, conn *dbus.Conn, item dbustest.Item, label string) dbustest.MenuItem {
	t.Helper()
	root, err := dbustest.WaitMenu(ctx, conn, item, func(root dbustest.MenuItem) bool {
		_, ok := root.Find(label)
		return ok
	})
	if err != nil {
		t.Fatalf("the menu never showed %q: %v", label, err)
	}
	return root
}
