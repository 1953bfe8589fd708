// Package tray will hold the menu-bar UI and desktop notifications
// (DESIGN.md, "Tray, notifications, login item"). It sees the engine only
// through a narrow interface and is not built yet: every run is headless.
package tray
