package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"conductorbridge/assets"
)

// chromeVersion is what Chrome accepts as an extension version.
var chromeVersion = regexp.MustCompile(`^\d+(\.\d+){0,3}$`)

// writeExtension writes the Chrome side panel unpacked into dir (for
// chrome://extensions → Load unpacked) and, beside it, dir + ".zip" for the
// Chrome Web Store. The store refuses a manifest with a "key" (it assigns
// its own id), so the zip's manifest has none; a store listing's id must
// then be allowed with conductor-bridge extension install --allow-origin,
// which names it in the native host's manifest and the bridge's allow-list.
func writeExtension(dir, version string) (string, error) {
	if err := assets.WriteExtension(dir); err != nil {
		return "", err
	}
	files, err := assets.Extension()
	if err != nil {
		return "", err
	}
	var manifest map[string]any
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil {
		return "", fmt.Errorf("extension manifest: %w", err)
	}
	delete(manifest, "key")
	if chromeVersion.MatchString(version) {
		manifest["version"] = version
	}
	if files["manifest.json"], err = json.MarshalIndent(manifest, "", "  "); err != nil {
		return "", err
	}

	zipPath := filepath.Clean(dir) + ".zip"
	f, err := os.Create(zipPath)
	if err != nil {
		return "", fmt.Errorf("extension zip: %w", err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, name := range assets.ExtensionNames(files) {
		w, err := zw.Create(name)
		if err != nil {
			return "", fmt.Errorf("extension zip: %w", err)
		}
		if _, err := w.Write(files[name]); err != nil {
			return "", fmt.Errorf("extension zip: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return "", fmt.Errorf("extension zip: %w", err)
	}
	return zipPath, f.Close()
}
