package tray

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/godbus/dbus/v5"
)

// ErrNoTrayHost: there is a D-Bus session but no tray host on it (yet: a
// login item can start before the desktop's panel).
var ErrNoTrayHost = errors.New("no tray host on the D-Bus session (nothing provides org.kde.StatusNotifierWatcher)")

// Available reports why there can be no menu-bar icon, or nil: on Linux
// the icon is a StatusNotifierItem, which needs a D-Bus session and a tray
// host (a StatusNotifierWatcher) on it.
func Available() error {
	names, err := busNames()
	if err != nil {
		return err
	}
	if !slices.Contains(names.owned, "org.kde.StatusNotifierWatcher") {
		return ErrNoTrayHost
	}
	return nil
}

// NotificationsAvailable reports why desktop notifications cannot work,
// or nil: they need a notification server on the D-Bus session, running or
// startable.
func NotificationsAvailable() error {
	names, err := busNames()
	if err != nil {
		return err
	}
	const svc = "org.freedesktop.Notifications"
	if !slices.Contains(names.owned, svc) && !slices.Contains(names.activatable, svc) {
		return errors.New("no notification server on the D-Bus session")
	}
	return nil
}

// NotificationsState is doctor's reading of NotificationsAvailable.
func NotificationsState() (string, error) {
	if err := NotificationsAvailable(); err != nil {
		return "", err
	}
	return "desktop notifications available", nil
}

type names struct{ owned, activatable []string }

func busNames() (names, error) {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		// godbus would try to start one with dbus-launch: not ours to do.
		return names{}, errors.New("no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)")
	}
	conn, err := dbus.SessionBusPrivate()
	if err != nil {
		return names{}, fmt.Errorf("no D-Bus session: %w", err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return names{}, fmt.Errorf("no D-Bus session: %w", err)
	}
	if err := conn.Hello(); err != nil {
		return names{}, fmt.Errorf("no D-Bus session: %w", err)
	}
	var n names
	bus := conn.BusObject()
	if err := bus.Call("org.freedesktop.DBus.ListNames", 0).Store(&n.owned); err != nil {
		return names{}, fmt.Errorf("list D-Bus names: %w", err)
	}
	_ = bus.Call("org.freedesktop.DBus.ListActivatableNames", 0).Store(&n.activatable)
	return n, nil
}
