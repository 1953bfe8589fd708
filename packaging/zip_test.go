package main

import (
	"archive/zip"
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkZip checks that the zip holds app under its own name, modes kept,
// every file byte for byte.
func checkZip(t *testing.T, zipPath, app string) {
	t.Helper()
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		entries[f.Name] = f
	}
	base := filepath.Dir(app)
	n := 0
	err = filepath.WalkDir(app, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n++
		rel, _ := filepath.Rel(base, p)
		name := filepath.ToSlash(rel)
		if d.IsDir() {
			name += "/"
		}
		f, ok := entries[name]
		if !ok {
			t.Errorf("zip lacks %s", name)
			return nil
		}
		info, _ := d.Info()
		if f.Mode() != info.Mode() {
			t.Errorf("zip %s mode %v, want %v", name, f.Mode(), info.Mode())
		}
		if d.IsDir() {
			return nil
		}
		rc, err := f.Open()
		if err != nil {
			return err
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		want, _ := os.ReadFile(p)
		if !bytes.Equal(got, want) {
			t.Errorf("zip %s differs from the bundle's", name)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != n {
		t.Errorf("zip has %d entries, bundle %d", len(entries), n)
	}
	if f := entries["Conductor Bridge.app/Contents/MacOS/conductor-bridge"]; f == nil || f.Mode()&0o111 != 0o111 {
		t.Error("the binary is not executable in the zip")
	}
}

// TestCaskForExistingZip is release.sh's last step: the cask for the zip
// ditto made, with nothing rebuilt.
func TestCaskForExistingZip(t *testing.T) {
	_, bin := testBuild(t)
	out := t.TempDir()
	res, err := run(context.Background(), options{Out: out, Binary: bin, Version: "2.0.0", Zip: true, Repo: defaultRepo}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(res.App)

	cask := filepath.Join(t.TempDir(), "conductor-bridge.rb")
	got, err := run(context.Background(), options{CaskZip: res.Zip, Cask: cask, Version: "2.0.0", Repo: defaultRepo}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if got.SHA256 != res.SHA256 || got.App != "" || got.Zip != "" {
		t.Errorf("-cask-zip result %+v, zip sha256 %s", got, res.SHA256)
	}
	if after, _ := os.Stat(res.App); !after.ModTime().Equal(before.ModTime()) {
		t.Error("-cask-zip rebuilt the bundle")
	}
	checkCask(t, cask, "2.0.0", res.SHA256, defaultRepo)

	// A zip whose name the cask's url would not find, or without the app.
	_, err = run(context.Background(), options{CaskZip: res.Zip, Cask: cask, Version: "2.0.1", Repo: defaultRepo}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "Conductor-Bridge-2.0.1.zip") {
		t.Errorf("wrong version: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "Conductor-Bridge-2.0.0.zip")
	zf, _ := os.Create(empty)
	zip.NewWriter(zf).Close()
	zf.Close()
	_, err = run(context.Background(), options{CaskZip: empty, Cask: cask, Version: "2.0.0", Repo: defaultRepo}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--keepParent") {
		t.Errorf("zip without the app: %v", err)
	}
}

// smallPNG writes a 512×512 PNG, too small for the icon.
func smallPNG(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewNRGBA(image.Rect(0, 0, 512, 512))); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "small.png")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
