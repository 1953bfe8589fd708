package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/macho"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"howett.net/plist"

	"conductorbridge/packaging/icns"
)

// TestReleaseBundle builds what release.sh builds, from a universal
// binary: bundle, zip and cask, and checks each.
func TestReleaseBundle(t *testing.T) {
	_, bin := testBuild(t)
	out := t.TempDir()
	cask := filepath.Join(out, "conductor-bridge.rb")
	var log bytes.Buffer
	res, err := run(context.Background(), options{
		Out: out, Binary: makeFat(t, bin), Version: "1.2.3", Build: "45",
		Zip: true, Cask: cask, Repo: "acme/bridge",
	}, &log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"app: " + res.App, "zip: " + res.Zip, "sha256: " + res.SHA256, "cask: " + cask} {
		if !strings.Contains(log.String(), want+"\n") {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}

	checkBundle(t, res.App, "1.2.3", "45")
	if arches, err := checkMachO(filepath.Join(res.App, "Contents", "MacOS", executable)); err != nil || len(arches) != 1 {
		t.Errorf("bundled universal binary: %v %v", arches, err)
	}
	if _, err := macho.OpenFat(filepath.Join(res.App, "Contents", "MacOS", executable)); err != nil {
		t.Errorf("the bundle's binary is no longer universal: %v", err)
	}

	if filepath.Base(res.Zip) != "Conductor-Bridge-1.2.3.zip" || filepath.Dir(res.Zip) != out {
		t.Errorf("zip = %s", res.Zip)
	}
	checkZip(t, res.Zip, res.App)
	data, err := os.ReadFile(res.Zip)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != res.SHA256 {
		t.Errorf("reported sha256 %s is not the zip's", res.SHA256)
	}

	checkCask(t, cask, "1.2.3", res.SHA256, "acme/bridge")
}

// TestTestBuild checks the bundle -test-build made: the cross-built
// binary is a darwin/arm64 executable, the version comes from git.
func TestTestBuild(t *testing.T) {
	res, bin := testBuild(t)
	checkBundle(t, res.App, res.Version, res.Build)
	f, err := macho.Open(bin)
	if err != nil {
		t.Fatalf("open the cross-built binary: %v", err)
	}
	defer f.Close()
	if f.Cpu != macho.CpuArm64 || f.Type != macho.TypeExec {
		t.Errorf("cross-built binary: cpu %v, type %v; want arm64 executable", f.Cpu, f.Type)
	}
	// Only a version and build git can give: the checkout's tag or dev.
	if !versionRE.MatchString(res.Version) || !buildRE.MatchString(res.Build) {
		t.Errorf("version %q build %q", res.Version, res.Build)
	}
	if fi, err := os.Stat(bin); err == nil && fi.Size() < 1<<20 {
		t.Errorf("binary is %d bytes: not the real app", fi.Size())
	}
}

// checkBundle checks the layout, modes, Info.plist and icon of app.
func checkBundle(t *testing.T, app, version, build string) {
	t.Helper()
	if filepath.Base(app) != "Conductor Bridge.app" {
		t.Errorf("bundle is named %q", filepath.Base(app))
	}

	// Exactly these files and folders, with these modes.
	want := map[string]fs.FileMode{
		".":                               fs.ModeDir | 0o755,
		"Contents":                        fs.ModeDir | 0o755,
		"Contents/Info.plist":             0o644,
		"Contents/PkgInfo":                0o644,
		"Contents/MacOS":                  fs.ModeDir | 0o755,
		"Contents/MacOS/conductor-bridge": 0o755,
		"Contents/Resources":              fs.ModeDir | 0o755,
		"Contents/Resources/AppIcon.icns": 0o644,
	}
	got := map[string]fs.FileMode{}
	err := filepath.WalkDir(app, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(app, p)
		got[filepath.ToSlash(rel)] = info.Mode()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("bundle layout:\n got %v\nwant %v", got, want)
	}

	read := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(app, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if pk := string(read("Contents/PkgInfo")); pk != "APPL????" {
		t.Errorf("PkgInfo = %q", pk)
	}

	checkInfoPlist(t, read("Contents/Info.plist"), version, build)

	f, err := macho.OpenFat(filepath.Join(app, "Contents/MacOS/conductor-bridge"))
	if err == nil {
		f.Close()
	} else if m, err := macho.Open(filepath.Join(app, "Contents/MacOS/conductor-bridge")); err != nil {
		t.Errorf("binary is not Mach-O: %v", err)
	} else {
		m.Close()
	}

	checkIcon(t, read("Contents/Resources/AppIcon.icns"))
}

// checkInfoPlist parses Info.plist as macOS would and checks every key,
// its type and its value; no key may be missing or extra.
func checkInfoPlist(t *testing.T, data []byte, version, build string) {
	t.Helper()
	var got map[string]any
	format, err := plist.Unmarshal(data, &got)
	if err != nil {
		t.Fatalf("Info.plist does not parse: %v\n%s", err, data)
	}
	if format != plist.XMLFormat {
		t.Errorf("Info.plist format = %s, want XML", plist.FormatNames[format])
	}
	copyright, _ := got["NSHumanReadableCopyright"].(string)
	if !regexp.MustCompile(`^Copyright © 20\d\d Conductor Bridge contributors$`).MatchString(copyright) {
		t.Errorf("NSHumanReadableCopyright = %#v", got["NSHumanReadableCopyright"])
	}
	want := map[string]any{
		"CFBundleIdentifier":            "com.conductor-bridge.app", // UNUserNotificationCenter keys the app's permission by it
		"CFBundleName":                  "Conductor Bridge",
		"CFBundleDisplayName":           "Conductor Bridge",
		"CFBundleExecutable":            "conductor-bridge",
		"CFBundlePackageType":           "APPL",
		"CFBundleSignature":             "????",
		"CFBundleInfoDictionaryVersion": "6.0",
		"CFBundleDevelopmentRegion":     "en",
		"CFBundleShortVersionString":    version,
		"CFBundleVersion":               build,
		"CFBundleIconFile":              "AppIcon",
		"LSMinimumSystemVersion":        "12.0",
		"LSApplicationCategoryType":     "public.app-category.developer-tools",
		"LSUIElement":                   true,
		"NSHighResolutionCapable":       true,
		"NSHumanReadableCopyright":      copyright,
	}
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			t.Errorf("Info.plist lacks %s", k)
		case reflect.TypeOf(g) != reflect.TypeOf(w):
			t.Errorf("Info.plist %s is a %T (%#v), want %T", k, g, g, w)
		case g != w:
			t.Errorf("Info.plist %s = %#v, want %#v", k, g, w)
		}
	}
	// No key beyond these: NSSupportsSuddenTermination, for one, would let
	// macOS kill the app at logout without applicationWillTerminate:, and
	// so without the bridge's shutdown (app/shutdown.go).
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("Info.plist has unexpected key %s = %#v", k, g)
		}
	}
}

// checkIcon decodes AppIcon.icns: every size macOS asks for, each PNG
// decoding to its declared size.
func checkIcon(t *testing.T, data []byte) {
	t.Helper()
	icons, err := icns.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("AppIcon.icns: %v", err)
	}
	want := map[string]int{
		"ic07": 128, "ic08": 256, "ic09": 512, "ic10": 1024,
		"ic11": 32, "ic12": 64, "ic13": 256, "ic14": 512,
	}
	got := map[string]int{}
	for _, ic := range icons {
		b := ic.Image.Bounds()
		if b.Dx() != b.Dy() {
			t.Errorf("%s is %d×%d", ic.Type, b.Dx(), b.Dy())
		}
		got[ic.Type] = b.Dx()
	}
	if !reflect.DeepEqual(got, want) || len(icons) != len(want) {
		t.Errorf("AppIcon.icns entries = %v, want %v", got, want)
	}
}

// TestInfoPlistEscapes: a value with XML's special characters survives.
func TestInfoPlistEscapes(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	f := newPlistFields(versionInfo{Version: "1.0", Build: "1", Year: 2030})
	f.Name = `Tom & Jerry's <"Bridge">`
	data, err := renderInfoPlist(root, f)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if _, err := plist.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got["CFBundleName"] != f.Name || got["NSHumanReadableCopyright"] != "Copyright © 2030 Conductor Bridge contributors" {
		t.Errorf("name %#v, copyright %#v", got["CFBundleName"], got["NSHumanReadableCopyright"])
	}
}

// TestRejectsBadBinary: a Linux build, a text file or nothing at all is
// refused before anything is written.
func TestRejectsBadBinary(t *testing.T) {
	dir := t.TempDir()
	elf := filepath.Join(dir, "elf")
	os.WriteFile(elf, append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 64)...), 0o755)
	text := filepath.Join(dir, "text")
	os.WriteFile(text, []byte("#!/bin/sh\necho hi\n"), 0o755)

	cases := map[string]struct {
		bin  string
		want string
	}{
		"ELF":     {elf, "ELF (Linux) binary"},
		"text":    {text, "not a Mach-O binary"},
		"missing": {filepath.Join(dir, "nope"), "no such file"},
		"none":    {"", "give -binary PATH"},
	}
	for name, tc := range cases {
		out := filepath.Join(dir, "out-"+name)
		_, err := run(context.Background(), options{Out: out, Binary: tc.bin, Repo: defaultRepo}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: output dir was created", name)
		}
	}
}

// TestRejectsBadFlags covers the flag checks that need no binary.
func TestRejectsBadFlags(t *testing.T) {
	_, bin := testBuild(t)
	out := t.TempDir()
	cases := map[string]struct {
		o    options
		want string
	}{
		"no -o":          {options{Binary: bin, Repo: defaultRepo}, "-o DIR is required"},
		"cask, no zip":   {options{Out: out, Binary: bin, Cask: "c.rb", Repo: defaultRepo}, "add -zip"},
		"bad version":    {options{Out: out, Binary: bin, Version: "../1", Repo: defaultRepo}, "version"},
		"bad build":      {options{Out: out, Binary: bin, Build: "1.2.3.4", Repo: defaultRepo}, "build"},
		"build not num":  {options{Out: out, Binary: bin, Build: "abc123", Repo: defaultRepo}, "build"},
		"bad repo":       {options{Out: out, Binary: bin, Repo: "not a repo"}, "owner/name"},
		"cask-zip alone": {options{CaskZip: "x.zip", Repo: defaultRepo}, "needs -cask"},
		"cask-zip+zip":   {options{CaskZip: "x.zip", Cask: "c.rb", Zip: true, Repo: defaultRepo}, "only writes the cask"},
		"icon too small": {options{Out: out, Binary: bin, Icon: smallPNG(t), Repo: defaultRepo}, "at least 1024"},
	}
	for name, tc := range cases {
		if _, err := run(context.Background(), tc.o, io.Discard); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
}
