//go:build linux

package main

import (
	"testing"

	"conductorbridge/testkit/dbustest"
)

// doctorDesktop is a desktop session for doctor: a private D-Bus with a
// tray host and a notification server.
func doctorDesktop(t *testing.T) ([]string, *dbustest.Bus) {
	bus := dbustest.Start(t)
	bus.Watcher(t)
	bus.Notifications(t)
	return []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, bus
}
