package tray

import (
	"conductorbridge/assets"
)

// The icons are designed files in assets/icons (drawn by assets/icons/draw):
// a two-arch bridge, in outline (idle), filled (working), or in outline
// with a ! (needs input) or × (error) badge.
//
// Template icons (macOS) are black with alpha, so the menu bar can tint
// them for light and dark; the regular ones (Linux trays) are grey with the
// state in colour.

var iconNames = [...]string{
	IconIdle:       "idle",
	IconWorking:    "working",
	IconNeedsInput: "needs-input",
	IconError:      "error",
}

// IconPNG returns the icon for a state as PNG, about size×size pixels:
//   - template, size up to 16: the 16×16 template; larger: the 32×32 (@2x);
//   - regular, size up to 32: the 32×32 coloured tray icon;
//   - regular, larger (notifications): the app icon scaled to size×size,
//     whatever the state.
func IconPNG(s IconState, template bool, size int) []byte {
	if !template && size > 32 {
		return assets.AppIconPNG(size)
	}
	name := "idle"
	if int(s) >= 0 && int(s) < len(iconNames) {
		name = iconNames[s]
	}
	return assets.TrayIcon(name, template, size > 16)
}
