package main

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// zipName is the release asset's name; the cask's url builds the same one.
func zipName(version string) string { return "Conductor-Bridge-" + version + ".zip" }

// zipApp zips app into dir as zipName(version), the .app folder itself at
// the top (like `ditto -c -k --keepParent`), with Unix modes so the binary
// stays executable once unzipped, and returns the zip's path and sha256.
func zipApp(app, dir, version string) (string, string, error) {
	dst := filepath.Join(dir, zipName(version))
	tmp, err := os.CreateTemp(dir, ".zip-*")
	if err != nil {
		return "", "", fmt.Errorf("create zip: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed

	sum := sha256.New()
	zw := zip.NewWriter(io.MultiWriter(tmp, sum))
	base := filepath.Dir(app)
	err = filepath.WalkDir(app, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return addToZip(zw, base, p, d)
	})
	if err == nil {
		err = zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", "", fmt.Errorf("zip %s: %w", app, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", "", fmt.Errorf("chmod zip: %w", err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", "", fmt.Errorf("move zip into place: %w", err)
	}
	return dst, hex.EncodeToString(sum.Sum(nil)), nil
}

// addToZip adds one file, folder or symlink under its path relative to base.
func addToZip(zw *zip.Writer, base, p string, d fs.DirEntry) error {
	info, err := d.Info()
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(base, p)
	if err != nil {
		return err
	}
	// FileInfoHeader records the Unix mode (the "made by Unix" attributes
	// that unzip and Archive Utility restore).
	h, err := zip.FileInfoHeader(info)
	if err != nil {
		return err
	}
	h.Name = filepath.ToSlash(rel)
	switch {
	case d.IsDir():
		h.Name += "/"
		_, err = zw.CreateHeader(h)
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		// A symlink's entry holds its target (frameworks in a signed
		// bundle use them; ours has none today).
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, target)
		return err
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s: not a file, folder or symlink", p)
	}
	h.Method = zip.Deflate
	w, err := zw.CreateHeader(h)
	if err != nil {
		return err
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

// checkReleaseZip checks that a zip made elsewhere (release.sh's ditto) is
// named as the cask's url expects and holds the app, and returns its sha256.
func checkReleaseZip(p, version string) (string, error) {
	if got, want := filepath.Base(p), zipName(version); got != want {
		return "", fmt.Errorf("zip %s: the cask downloads %s for version %s; rename it or pass -version", p, want, version)
	}
	zr, err := zip.OpenReader(p)
	if err != nil {
		return "", fmt.Errorf("open zip: %w", err)
	}
	want := path.Join(appBundleName, "Contents", "MacOS", executable)
	found := false
	for _, f := range zr.File {
		if f.Name == want {
			found = true
			break
		}
	}
	zr.Close()
	if !found {
		return "", fmt.Errorf("zip %s has no %s: zip the .app with its parent (ditto -c -k --keepParent)", p, want)
	}
	return fileSHA256(p)
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
