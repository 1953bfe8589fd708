package tray

import (
	"errors"

	"github.com/gen2brain/beeep"
)

// beeepNotifier shows notifications through beeep: the desktop's
// org.freedesktop.Notifications on Linux, and on macOS outside an app
// bundle (as Terminal through NSUserNotificationCenter, else osascript,
// which macOS attributes to Script Editor). The bundled app posts through
// UNUserNotificationCenter instead (un_darwin.go).
type beeepNotifier struct {
	icon []byte
}

func newBeeep() *beeepNotifier {
	beeep.AppName = "Conductor Bridge"
	return &beeepNotifier{icon: IconPNG(IconIdle, false, 64)}
}

// Notify shows one notification.
func (d *beeepNotifier) Notify(title, body string) error {
	return beeep.Notify(title, body, d.icon)
}

// NotificationsOff is why notifications cannot be shown when the person
// can change it, and where.
type NotificationsOff struct{ Why, Fix string }

func (e *NotificationsOff) Error() string { return e.Why }

// settingsPath is where a person allows an app's notifications on macOS.
const settingsPath = "System Settings › Notifications › Conductor Bridge"

// errNotificationsDenied: the person turned them off for the app.
var errNotificationsDenied = &NotificationsOff{
	Why: "notifications are turned off for Conductor Bridge",
	Fix: "turn them on in " + settingsPath + " (on macOS 12: System Preferences › Notifications & Focus)",
}

// ErrNotInBundle (macOS): this process is not Conductor Bridge.app, so it
// cannot ask macOS about the app's notifications. A binary started
// through a symlink (the Homebrew cask's conductor-bridge) is not in its
// bundle: the main bundle is found from the path the process was started
// by, not the file's real place.
var ErrNotInBundle = errors.New("this process is not running from Conductor Bridge.app")
