package tray

import "github.com/gen2brain/beeep"

// DesktopNotifier shows notifications through the desktop's own service
// (Notification Center on macOS, org.freedesktop.Notifications on Linux).
type DesktopNotifier struct {
	icon []byte
}

// NewDesktopNotifier returns a Notifier for the desktop.
func NewDesktopNotifier() *DesktopNotifier {
	beeep.AppName = "Conductor Bridge"
	return &DesktopNotifier{icon: IconPNG(IconIdle, false, 64)}
}

// Notify shows one notification.
func (d *DesktopNotifier) Notify(title, body string) error {
	return beeep.Notify(title, body, d.icon)
}
