//go:build !darwin

package tray

// NewDesktopNotifier returns the desktop's notifier: beeep.
func NewDesktopNotifier() Notifier { return newBeeep() }
