package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"regexp"
	"text/template"

	"conductorbridge/bridge/paths"
)

// caskTemplate is cask.rb.tmpl, embedded since it lives beside this
// program (Info.plist.tmpl, above the package, is read from the module root).
//
//go:embed cask.rb.tmpl
var caskTemplate string

// caskData is what a release contributes to the cask.
type caskData struct {
	Version, SHA256, Repo string
}

// caskFields are the template's fields: the release's plus the app's fixed
// facts.
type caskFields struct {
	caskData
	Token, AppName, Executable, BundleID, AgentLabel, MacOSName string
	Zap                                                         []string
}

// zapPaths are the folders and files the app creates on macOS: its state
// and log folders, from the same code that decides them (bridge/paths),
// and the login item's LaunchAgent (app/service.go).
func zapPaths() ([]string, error) {
	roots, err := paths.Default("~", "darwin", func(string) string { return "" })
	if err != nil {
		return nil, fmt.Errorf("the app's macOS folders: %w", err)
	}
	return []string{
		roots.StateDir,
		roots.LogDir,
		"~/Library/LaunchAgents/" + agentLabel + ".plist",
	}, nil
}

var (
	repoRE   = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$`)
	sha256RE = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

// checkRepo validates -repo: it goes into the cask's URLs unquoted.
func checkRepo(repo string) error {
	if !repoRE.MatchString(repo) {
		return fmt.Errorf("repo %q: want GitHub owner/name", repo)
	}
	return nil
}

// writeCask renders the cask to path. Every value is checked against a
// pattern (version, repo, sha256) or is a constant, so none needs Ruby
// string escaping.
func writeCask(path string, d caskData) error {
	if err := checkRepo(d.Repo); err != nil {
		return err
	}
	if !versionRE.MatchString(d.Version) {
		return fmt.Errorf("cask version %q: want letters, digits, '.', '+' or '-'", d.Version)
	}
	if !sha256RE.MatchString(d.SHA256) {
		return fmt.Errorf("cask sha256 %q: want 64 lowercase hex digits", d.SHA256)
	}
	zap, err := zapPaths()
	if err != nil {
		return err
	}
	tmpl, err := template.New("cask.rb.tmpl").Parse(caskTemplate)
	if err != nil {
		return fmt.Errorf("parse cask template: %w", err)
	}
	var out bytes.Buffer
	err = tmpl.Execute(&out, caskFields{
		caskData:   d,
		Token:      caskToken,
		AppName:    appName,
		Executable: executable,
		BundleID:   bundleID,
		AgentLabel: agentLabel,
		MacOSName:  "monterey", // macOS 12, minimumMacOS
		Zap:        zap,
	})
	if err != nil {
		return fmt.Errorf("render cask: %w", err)
	}
	return writeFile(path, out.Bytes(), 0o644)
}
