package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"text/template"
)

// plistFields are the top-level Info.plist.tmpl's fields.
type plistFields struct {
	BundleID, Name, Executable, Version, Build, MinimumSystemVersion, Copyright string
}

// escaped returns the fields XML-escaped, so the template needs no escaping
// of its own and a field added later cannot forget it.
func (f plistFields) escaped() plistFields {
	esc := func(s string) string {
		var b bytes.Buffer
		_ = xml.EscapeText(&b, []byte(s)) // a bytes.Buffer never fails
		return b.String()
	}
	return plistFields{
		BundleID: esc(f.BundleID), Name: esc(f.Name), Executable: esc(f.Executable),
		Version: esc(f.Version), Build: esc(f.Build),
		MinimumSystemVersion: esc(f.MinimumSystemVersion), Copyright: esc(f.Copyright),
	}
}

// newPlistFields are the app's values for a version.
func newPlistFields(v versionInfo) plistFields {
	return plistFields{
		BundleID:             bundleID,
		Name:                 appName,
		Executable:           executable,
		Version:              v.Version,
		Build:                v.Build,
		MinimumSystemVersion: minimumMacOS,
		Copyright:            fmt.Sprintf("Copyright © %d %s contributors", v.Year, appName),
	}
}

// renderInfoPlist renders root/Info.plist.tmpl. A field the template names
// that plistFields lacks fails here (text/template checks struct fields),
// not in the bundle.
func renderInfoPlist(root string, f plistFields) ([]byte, error) {
	path := filepath.Join(root, "Info.plist.tmpl")
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read Info.plist template: %w", err)
	}
	tmpl, err := template.New("Info.plist").Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, f.escaped()); err != nil {
		return nil, fmt.Errorf("render %s: %w", path, err)
	}
	return out.Bytes(), nil
}
