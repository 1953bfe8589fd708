package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/assets"
)

func TestExtensionUnpackedAndStoreZip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "chrome-extension")
	res, err := run(context.Background(), options{Extension: dir, Version: "1.2.3", Build: "7", Repo: defaultRepo}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	viewer, _ := os.ReadFile(filepath.Join(root, "assets", "viewer", "render.js"))
	unpacked, _ := os.ReadFile(filepath.Join(dir, "render.js"))
	if len(viewer) == 0 || !bytes.Equal(viewer, unpacked) {
		t.Error("the unpacked extension's render.js is not the viewer's")
	}
	var m map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if json.Unmarshal(b, &m) != nil || m["key"] == nil {
		t.Errorf("unpacked manifest has no key: its id would not be the one the bridge allows")
	}

	zr, err := zip.OpenReader(res.ExtZip)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	info, _ := os.Stat(res.ExtZip)
	t.Logf("extension zip: %d bytes", info.Size())
	want, _ := assets.Extension()
	if len(zr.File) != len(want) {
		t.Errorf("zip has %d files, want %d", len(zr.File), len(want))
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		got, _ := io.ReadAll(rc)
		rc.Close()
		if f.Name == "manifest.json" {
			var zm map[string]any
			if err := json.Unmarshal(got, &zm); err != nil || zm["key"] != nil || zm["version"] != "1.2.3" || zm["manifest_version"] != 3.0 {
				t.Errorf("store manifest: %s", got)
			}
			continue
		}
		if !bytes.Equal(got, want[f.Name]) {
			t.Errorf("zip's %s differs from the source", f.Name)
		}
	}
}
