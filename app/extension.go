package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"conductorbridge/assets"
	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/nativehost"
	"conductorbridge/bridge/regular"
)

// The side panel is two things on disk: the unpacked extension, which the
// person loads once at chrome://extensions, and the native messaging host
// manifest in each Chromium-family browser's folder, which lets the panel
// start `conductor-bridge native-host` to learn the port and a credential.
// extension install writes both and records what it wrote, so that
// uninstall takes away exactly that, and doctor can check it.

// extensionRecordFile is the record of an install, in the state dir.
const extensionRecordFile = "chrome-extension.json"

// extensionRecord is what extension install wrote.
type extensionRecord struct {
	Extension string   `json:"extension"`      // the unpacked extension's folder
	Files     []string `json:"files"`          // its files, relative to Extension
	Manifests []string `json:"manifests"`      // native host manifests
	Dirs      []string `json:"dirs,omitempty"` // folders install created for them, outer first
	// Origins are extensions besides the bridge's own allowed to use the
	// native host (a store copy of the panel has its own id).
	Origins []string `json:"origins,omitempty"`
}

func readExtensionRecord(stateDir string) (extensionRecord, error) {
	var r extensionRecord
	b, err := regular.ReadFile(filepath.Join(stateDir, extensionRecordFile))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", extensionRecordFile, err)
	}
	return r, nil
}

func (r extensionRecord) save(stateDir string) error {
	b, _ := json.MarshalIndent(r, "", "  ")
	return atomicfile.Write(filepath.Join(stateDir, extensionRecordFile), append(b, '\n'), 0o600)
}

// nativeOrigins are the extensions that sign in through the native host:
// the bridge's own, and those extension install allowed. Their
// /extension-token is refused.
func nativeOrigins(stateDir string) []string {
	out := []string{ownExtension}
	r, _ := readExtensionRecord(stateDir) // none yet: the bridge's own only
	for _, o := range r.Origins {
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// browsers are the places this user's browsers read native hosts from.
func (c *config) browsers() []nativehost.Browser {
	return nativehost.Browsers(c.Home, runtime.GOOS, os.Getenv)
}

// installExtension writes the unpacked extension into the state dir and
// the native host manifest, naming exe, into every browser whose folder
// exists; extra are more extension origins allowed to use the host. It
// returns the record, and the browsers it installed the host for.
func installExtension(c config, exe string, extra []string) (extensionRecord, []string, error) {
	rec, err := readExtensionRecord(c.StateDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return rec, nil, err
	}
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		return rec, nil, fmt.Errorf("create state dir: %w", err)
	}
	rec.Extension = filepath.Join(c.StateDir, "chrome-extension")
	if err := assets.WriteExtension(rec.Extension); err != nil {
		return rec, nil, err
	}
	files, err := assets.Extension()
	if err != nil {
		return rec, nil, err
	}
	rec.Files = assets.ExtensionNames(files)
	for _, o := range extra {
		if !slices.Contains(rec.Origins, o) && o != ownExtension {
			rec.Origins = append(rec.Origins, o)
		}
	}
	names, err := installManifests(c, exe, &rec)
	if serr := rec.save(c.StateDir); serr != nil && err == nil {
		err = serr
	}
	return rec, names, err
}

// installManifests writes the host manifest into every browser whose
// folder exists, adding what it wrote to rec; doctor --fix calls it too.
func installManifests(c config, exe string, rec *extensionRecord) ([]string, error) {
	m := nativehost.NewManifest(exe, append([]string{ownExtension}, rec.Origins...))
	var names []string
	done := map[string]bool{}
	for _, b := range c.browsers() {
		if _, err := os.Stat(b.Profile); err != nil || done[b.Manifest()] {
			continue
		}
		done[b.Manifest()] = true
		created, err := nativehost.WriteManifest(b.Manifest(), m)
		for _, d := range created {
			if !slices.Contains(rec.Dirs, d) {
				rec.Dirs = append(rec.Dirs, d)
			}
		}
		if err != nil {
			return names, fmt.Errorf("%s: %w", b.Name, err)
		}
		if !slices.Contains(rec.Manifests, b.Manifest()) {
			rec.Manifests = append(rec.Manifests, b.Manifest())
		}
		names = append(names, b.Name)
	}
	return names, nil
}

// uninstallExtension removes what installExtension wrote, and nothing
// else: a manifest that no longer names this host, a file the person put
// in the extension's folder, a folder that is not empty, all stay.
func uninstallExtension(c config) ([]string, error) {
	rec, err := readExtensionRecord(c.StateDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, p := range rec.Manifests {
		if m, err := nativehost.ReadManifest(p); err != nil || m.Name != nativehost.HostName {
			continue // gone already, or not ours any more
		}
		if err := os.Remove(p); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, p)
	}
	for _, d := range slices.Backward(rec.Dirs) {
		os.Remove(d) // only when empty; inner folders first
	}
	if rec.Extension != "" {
		for _, f := range rec.Files {
			if err := os.Remove(filepath.Join(rec.Extension, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
		removeEmptyDirs(rec.Extension)
		if _, err := os.Stat(rec.Extension); errors.Is(err, fs.ErrNotExist) {
			removed = append(removed, rec.Extension)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return removed, err
	}
	return removed, os.Remove(filepath.Join(c.StateDir, extensionRecordFile))
}

// removeEmptyDirs removes dir and the folders in it that are empty.
func removeEmptyDirs(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() {
			removeEmptyDirs(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir)
}

// extensionCmd is `conductor-bridge extension install|uninstall`.
func extensionCmd(args []string, stdout, stderr io.Writer) error {
	const usage = "usage: conductor-bridge extension install [--allow-origin chrome-extension://<id>] | extension uninstall"
	if len(args) == 0 {
		return errors.New(usage)
	}
	verb := args[0]
	fs := flag.NewFlagSet("extension "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	var extra originList
	fs.Var(&extra, "allow-origin", "another extension allowed to use the native host, e.g. a store copy of the side panel (repeatable)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	switch verb {
	case "install":
		exe, err := installable()
		if err != nil {
			return err
		}
		rec, browsers, err := installExtension(c, exe, extra)
		if err != nil {
			return err
		}
		printInstalled(stdout, rec, browsers)
		return nil
	case "uninstall":
		removed, err := uninstallExtension(c)
		for _, p := range removed {
			fmt.Fprintln(stdout, "removed", p)
		}
		if err == nil && len(removed) == 0 {
			fmt.Fprintln(stdout, "the Chrome extension is not installed")
		}
		if err == nil && len(removed) > 0 {
			fmt.Fprintln(stdout, "remove the side panel from Chrome too: chrome://extensions → Conductor Bridge → Remove")
		}
		return err
	default:
		return errors.New(usage)
	}
}

func printInstalled(w io.Writer, rec extensionRecord, browsers []string) {
	fmt.Fprintln(w, "side panel written to", rec.Extension)
	if len(browsers) == 0 {
		fmt.Fprintln(w, "no Chromium-family browser found (Chrome, Chromium, Brave, Edge, Arc): open yours once, then run this again")
	} else {
		fmt.Fprintln(w, "native host installed for", strings.Join(browsers, ", "))
	}
	fmt.Fprintln(w, "in your browser, open chrome://extensions, turn on Developer mode, click Load unpacked and choose that folder")
}
