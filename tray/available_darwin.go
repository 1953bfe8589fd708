//go:build darwin && cgo

package tray

// Available reports why there can be no menu bar: on macOS there always is.
func Available() error { return nil }

// NotificationsAvailable reports whether desktop notifications can work:
// Notification Center always can.
func NotificationsAvailable() error { return nil }
