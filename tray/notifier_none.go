//go:build !linux && !darwin

package tray

// NotificationsAvailable: beeep has its own way on other systems.
func NotificationsAvailable() error { return nil }

// NotificationsState is doctor's reading of NotificationsAvailable.
func NotificationsState() (string, error) { return "desktop notifications available", nil }
