package assets

import (
	"embed"
	"slices"
)

// The icons in icons/ are drawn by icons/draw (go run ./assets/icons/draw);
// the PNG files are the source of truth the app embeds.
//
//go:embed icons/*.png
var icons embed.FS

// TrayStates are the states TrayIcon knows.
var TrayStates = []string{"idle", "working", "needs-input", "error"}

// TrayIcon returns the menu-bar icon for a state ("idle", "working",
// "needs-input" or "error") as PNG, or nil for an unknown state.
//
// With template, it is a macOS template image, black with alpha only, which
// the menu bar tints for light and dark: 16×16, or 32×32 (@2x) with retina.
// Without template, it is the coloured 32×32 icon for Linux trays (a grey
// mark, the state in colour); retina makes no difference then.
func TrayIcon(state string, template bool, retina bool) []byte {
	if !slices.Contains(TrayStates, state) {
		return nil
	}
	name := "icons/tray-" + state
	switch {
	case template && retina:
		name += "-Template@2x"
	case template:
		name += "-Template"
	}
	return mustRead(name + ".png")
}

// AppIcon is the app icon, a 1024×1024 PNG: a macOS rounded square with
// transparent margins.
var AppIcon = mustRead("icons/app-icon.png")

// mustRead returns a copy of an embedded file.
func mustRead(name string) []byte {
	b, err := icons.ReadFile(name)
	if err != nil {
		panic(err) // embedded above: cannot happen
	}
	return b
}
