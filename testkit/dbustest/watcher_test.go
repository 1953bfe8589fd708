//go:build linux

package dbustest_test

import (
	"slices"
	"testing"

	"github.com/godbus/dbus/v5"

	"conductorbridge/testkit/dbustest"
)

func TestWatcherRegistration(t *testing.T) {
	bus := dbustest.Start(t)
	w := bus.Watcher(t)
	conn := bus.Conn(t)
	ctx := testContext(t)
	me := conn.Names()[0]
	watcher := conn.Object("org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher")

	for _, arg := range []string{"/custom/Item", "org.example.Tray"} {
		if err := watcher.Call("org.kde.StatusNotifierWatcher.RegisterStatusNotifierItem", 0, arg).Err; err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []dbustest.Item{{Service: me, Path: "/custom/Item"}, {Service: me, Path: "/StatusNotifierItem"}} {
		if got, err := w.WaitItem(ctx); err != nil || got != want {
			t.Errorf("WaitItem = %+v, %v; want %+v", got, err, want)
		}
	}

	var props map[string]dbus.Variant
	if err := watcher.Call("org.freedesktop.DBus.Properties.GetAll", 0, "org.kde.StatusNotifierWatcher").Store(&props); err != nil {
		t.Fatal(err)
	}
	items, _ := props["RegisteredStatusNotifierItems"].Value().([]string)
	if want := []string{me + "/custom/Item", me + "/StatusNotifierItem"}; !slices.Equal(items, want) {
		t.Errorf("RegisteredStatusNotifierItems = %q, want %q", items, want)
	}
	if props["IsStatusNotifierHostRegistered"].Value() != true || props["ProtocolVersion"].Value() != int32(0) {
		t.Errorf("props = %v", props)
	}
}
