package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"conductorbridge/assets"
	"conductorbridge/packaging/icns"
)

// buildBundle makes out/Conductor Bridge.app, replacing any earlier one
// (a stale _CodeSignature from a signed build would otherwise survive):
//
//	Contents/Info.plist
//	Contents/PkgInfo                  APPL????
//	Contents/MacOS/conductor-bridge   0755
//	Contents/Resources/AppIcon.icns
func buildBundle(ctx context.Context, root string, o options, v versionInfo) (string, error) {
	if o.Binary == "" && !o.TestBuild {
		return "", fmt.Errorf("no binary: give -binary PATH (a darwin build) or -test-build")
	}
	// Everything that can fail without touching the output comes first.
	if o.Binary != "" {
		if _, err := checkMachO(o.Binary); err != nil {
			return "", err
		}
	}
	plist, err := renderInfoPlist(root, newPlistFields(v))
	if err != nil {
		return "", err
	}
	icon, err := appIcon(o.Icon)
	if err != nil {
		return "", err
	}

	app := filepath.Join(o.Out, appBundleName)
	contents := filepath.Join(app, "Contents")
	if err := os.RemoveAll(app); err != nil {
		return "", fmt.Errorf("remove the previous bundle: %w", err)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return "", fmt.Errorf("create output dir: %w", err)
	}
	for _, d := range []string{app, contents, filepath.Join(contents, "MacOS"), filepath.Join(contents, "Resources")} {
		if err := mkdir(d); err != nil {
			return "", err
		}
	}
	files := []struct {
		path string
		data []byte
	}{
		{filepath.Join(contents, "Info.plist"), plist},
		// Type and creator codes: Finder's oldest way of telling an app,
		// still written by Xcode.
		{filepath.Join(contents, "PkgInfo"), []byte("APPL????")},
		{filepath.Join(contents, "Resources", "AppIcon.icns"), icon},
	}
	for _, f := range files {
		if err := writeFile(f.path, f.data, 0o644); err != nil {
			return "", err
		}
	}

	exe := filepath.Join(contents, "MacOS", executable)
	if o.Binary != "" {
		err = copyExecutable(o.Binary, exe)
	} else {
		if err = crossBuild(ctx, root, exe, v.Version); err == nil {
			err = os.Chmod(exe, 0o755)
		}
	}
	if err != nil {
		return "", err
	}
	if _, err := checkMachO(exe); err != nil {
		return "", err
	}
	return app, nil
}

// appIcon returns AppIcon.icns made from the PNG at path, or from the
// embedded app icon.
func appIcon(path string) ([]byte, error) {
	src, name := assets.AppIcon, "assets.AppIcon"
	if path != "" {
		var err error
		if src, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("read icon: %w", err)
		}
		name = path
	}
	img, err := png.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("decode icon %s: %w", name, err)
	}
	var out bytes.Buffer
	if err := icns.Encode(&out, img); err != nil {
		return nil, fmt.Errorf("make AppIcon.icns from %s: %w", name, err)
	}
	return out.Bytes(), nil
}

// mkdir creates dir with mode 0755, whatever the umask: the bundle's
// folders must be readable by everyone once installed in /Applications.
func mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return fmt.Errorf("chmod %s: %w", dir, err)
	}
	return nil
}

// writeFile writes data with exactly mode perm, whatever the umask.
func writeFile(path string, data []byte, perm os.FileMode) error {
	if err := os.WriteFile(path, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(path, perm); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	return nil
}
