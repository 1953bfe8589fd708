package tray

import (
	"errors"
	"fmt"
)

// NewDesktopNotifier returns the notifier for this process: the app
// bundle's UNUserNotificationCenter, or beeep outside a bundle (a binary
// run from a terminal or a build folder).
func NewDesktopNotifier() Notifier {
	if c, err := newUNCenter(); err == nil {
		return c
	}
	return newBeeep()
}

// NotificationsAvailable is nil on macOS: there is always a route (the
// app's notification center, or beeep outside the app), and whether the
// person allows them can change at any time; each Notify says.
func NotificationsAvailable() error { return nil }

// NotificationsState is doctor's reading: whether macOS lets the app show
// notifications, and when not, a *NotificationsOff saying where to allow
// them. Outside the app bundle there is no app to ask about: the error
// wraps ErrNotInBundle.
func NotificationsState() (string, error) {
	c, err := newUNCenter()
	if errors.Is(err, errNotInBundle) {
		return "", fmt.Errorf("%w: %w", ErrNotInBundle, err)
	}
	if err != nil {
		return "", err
	}
	return c.state()
}
