// Package assets will hold the menu-bar template icons, the app icon and
// the built-in session viewer, embedded with go:embed.
package assets
