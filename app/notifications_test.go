package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"conductorbridge/tray"
)

// TestNotificationsFinding: doctor says whether notifications are allowed
// and, when not, where to allow them — for each answer the platform can
// give (macOS's come from UNUserNotificationCenter, run in macos.yml).
func TestNotificationsFinding(t *testing.T) {
	denied := &tray.NotificationsOff{Why: "notifications are turned off for Conductor Bridge", Fix: "turn them on in System Settings › Notifications › Conductor Bridge"}
	for _, tt := range []struct {
		name                string
		state               string
		err                 error
		status, detail, fix string
	}{
		{"allowed", "allowed (System Settings › Notifications › Conductor Bridge)", nil, statusOK, "allowed (System Settings › Notifications › Conductor Bridge)", ""},
		{"turned off", "", denied, statusWarn, denied.Why, denied.Fix},
		{"outside the app", "", fmt.Errorf("%w: not running from an app bundle", tray.ErrNotInBundle), statusWarn, "cannot ask macOS", "/Applications/Conductor Bridge.app/Contents/MacOS/conductor-bridge"},
		{"no notification server", "", fmt.Errorf("no D-Bus session"), statusWarn, "no desktop notifications: no D-Bus session", "desktop session"},
	} {
		f := notificationsFinding(reportOf(tt.state, tt.err))
		if f.Status != tt.status || !strings.Contains(f.Detail, tt.detail) || !strings.Contains(f.Fix, tt.fix) {
			t.Errorf("%s: %+v; want %s, detail %q, fix %q", tt.name, f, tt.status, tt.detail, tt.fix)
		}
	}
}

// TestNotificationsStateCommand runs the hidden command doctor asks the
// app bundle with: it answers JSON, here without a D-Bus session.
func TestNotificationsStateCommand(t *testing.T) {
	cmd := exec.Command(binary, "notifications-state")
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var r notificationsReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if r.State == "" && r.Why == "" {
		t.Errorf("empty report: %s", out)
	}
}
