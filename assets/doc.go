// Package assets holds what the bridge shows people, embedded with
// go:embed: the built-in session viewer (viewer/) and, later, the
// menu-bar template icons and the app icon.
package assets

import (
	"embed"
	"io/fs"
)

//go:embed viewer
var files embed.FS

// Viewer is the built-in session viewer: index.html, its script and style.
var Viewer = mustSub(files, "viewer")

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // a directory embedded above: cannot happen
	}
	return sub
}
