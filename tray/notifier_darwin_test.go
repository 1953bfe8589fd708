package tray

import (
	"errors"
	"testing"
)

// TestNotificationsOutsideABundle runs on a Mac (macos.yml): the test
// binary is no app bundle, so asking for UNUserNotificationCenter would
// raise an Objective-C exception and end the process. The bundle is
// checked first: the notifier is beeep's, and doctor hears why it cannot
// ask. (Inside the bundle, macos.yml runs `notifications-state` from the
// signed test bundle.)
func TestNotificationsOutsideABundle(t *testing.T) {
	if _, err := newUNCenter(); !errors.Is(err, errNotInBundle) {
		t.Fatalf("newUNCenter() outside a bundle: %v, want errNotInBundle", err)
	}
	if n := NewDesktopNotifier(); !isBeeep(n) {
		t.Errorf("NewDesktopNotifier() = %T, want beeep's outside a bundle", n)
	}
	if _, err := NotificationsState(); !errors.Is(err, ErrNotInBundle) {
		t.Errorf("NotificationsState() = %v, want ErrNotInBundle", err)
	}
}

func isBeeep(n Notifier) bool { _, ok := n.(*beeepNotifier); return ok }
