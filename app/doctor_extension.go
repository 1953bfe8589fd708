package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"conductorbridge/bridge/nativehost"
)

// extension: the side panel's native host, in each browser that is here:
// its manifest exists, calls a binary that is there, and allows the
// bridge's extension (and the others extension install allowed). With
// --fix a wrong or missing manifest is rewritten to call this binary,
// once the panel was installed.
func (d *doctorRun) extension() finding {
	f := finding{ID: "chrome-extension", Title: "Chrome panel"}
	rec, recErr := readExtensionRecord(d.c.StateDir)
	installed := recErr == nil
	if recErr != nil && !errors.Is(recErr, fs.ErrNotExist) {
		f.Status, f.Detail, f.Fix = statusFail, "the install record is unreadable: "+recErr.Error(), "conductor-bridge extension install"
		return f
	}
	problems, browsers, found := d.manifestProblems(rec)
	switch {
	case len(browsers) == 0:
		f.Status, f.Detail = statusWarn, "no Chromium-family browser found (Chrome, Chromium, Brave, Edge, Arc): the side panel needs one"
		return f
	case !installed && found == 0:
		f.Status, f.Detail = statusWarn, "the side panel is not installed"
		f.Fix = "conductor-bridge extension install (or Install Chrome extension… in the menu bar)"
		return f
	}
	if len(problems) > 0 && d.fix && installed {
		exe, err := installable()
		if err == nil {
			_, err = installManifests(d.c, exe, &rec)
		}
		if err == nil {
			err = rec.save(d.c.StateDir)
		}
		if err == nil {
			f.Status, f.Detail = statusOK, "native host manifests rewritten to call "+exe
			f.Items = problems
			return f
		}
		problems = append(problems, "--fix failed: "+err.Error())
	}
	if len(problems) > 0 {
		f.Status, f.Detail, f.Items = statusFail, "the side panel cannot reach the bridge from every browser:", problems
		f.Fix = "conductor-bridge doctor --fix (rewrites the native host manifests to call this binary)"
		return f
	}
	if installed {
		if _, err := os.Stat(rec.Extension); err != nil {
			f.Status, f.Detail = statusWarn, "the unpacked extension is gone from "+rec.Extension
			f.Fix = "conductor-bridge extension install, then reload it at chrome://extensions"
			return f
		}
	}
	f.Status, f.Detail = statusOK, "native host installed for "+fmt.Sprint(browsers)
	return f
}

// manifestProblems checks the host manifest of every browser that is here
// and returns what is wrong, the browsers it looked at and how many
// manifests it found.
func (d *doctorRun) manifestProblems(rec extensionRecord) (problems, browsers []string, found int) {
	seen := map[string]bool{}
	for _, b := range d.c.browsers() {
		if _, err := os.Stat(b.Profile); err != nil || seen[b.Manifest()] {
			continue
		}
		seen[b.Manifest()] = true
		browsers = append(browsers, b.Name)
		m, err := nativehost.ReadManifest(b.Manifest())
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, b.Name+": no native host manifest at "+b.Manifest())
			continue
		case err != nil:
			found++
			problems = append(problems, b.Name+": "+err.Error())
			continue
		case m.Name != nativehost.HostName || m.Type != "stdio":
			found++
			problems = append(problems, fmt.Sprintf("%s: %s names host %q of type %q", b.Name, b.Manifest(), m.Name, m.Type))
			continue
		}
		found++
		if info, err := os.Stat(m.Path); err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
			problems = append(problems, fmt.Sprintf("%s: calls %s, which is not there (or not a program)", b.Name, m.Path))
		}
		for _, o := range append([]string{ownExtension}, rec.Origins...) {
			if !m.Allows(o) {
				problems = append(problems, fmt.Sprintf("%s: does not allow %s", b.Name, o))
			}
		}
	}
	return problems, browsers, found
}
