package assets

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

//go:embed extension
var extensionFiles embed.FS

// ExtensionID is the Chrome side panel's id, fixed by the public key in
// its manifest, so the bridge can allow-list it before it is installed.
const ExtensionID = "bnajdpidefmalpkmnjimpcbokiocknjp"

// extensionIconSizes are the icons the manifest names.
var extensionIconSizes = []int{16, 32, 48, 128}

// shared are the viewer files the extension uses as they are: one
// renderer, one page chrome and one look for both, never a copy that drifts.
var shared = []string{"render.js", "page.js", "viewer.css"}

// Extension returns the unpacked extension's files by name: its own
// (assets/extension) and the viewer's shared ones.
func Extension() (map[string][]byte, error) {
	out := map[string][]byte{}
	own, err := fs.Sub(extensionFiles, "extension")
	if err != nil {
		return nil, err
	}
	err = fs.WalkDir(own, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(own, p)
		out[p] = b
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read extension: %w", err)
	}
	for _, name := range shared {
		b, err := fs.ReadFile(Viewer, name)
		if err != nil {
			return nil, fmt.Errorf("read viewer's %s: %w", name, err)
		}
		out[name] = b
	}
	// Its icons are the app's, at the sizes Chrome asks for.
	for _, size := range extensionIconSizes {
		out[fmt.Sprintf("icons/%d.png", size)] = AppIconPNG(size)
	}
	return out, nil
}

// ExtensionNames lists the extension's files in a stable order.
func ExtensionNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// WriteExtension writes the unpacked extension into dir, ready for
// chrome://extensions → Load unpacked.
func WriteExtension(dir string) error {
	files, err := Extension()
	if err != nil {
		return err
	}
	for _, name := range ExtensionNames(files) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write extension: %w", err)
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return fmt.Errorf("write extension: %w", err)
		}
	}
	return nil
}
