package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDoctorCodex: doctor says nothing is wrong without Codex, warns with
// the fix while the bridge's Codex hooks are missing, passes once `hooks
// install --codex` put them in, fails when Codex would not trust them (the
// file edited by hand), and --fix makes them trusted again; an install
// without the PermissionRequest hook (an older bridge's) warns, and --fix
// adds it.
func TestDoctorCodex(t *testing.T) {
	home := t.TempDir()
	env := []string{"PATH=" + t.TempDir()} // no codex on PATH: said, not fatal
	check := func(wantStatus string, args ...string) finding {
		t.Helper()
		got, _, _ := runDoctor(t, home, env, args...)
		f := got["codex"]
		if f.Status != wantStatus {
			t.Errorf("codex check: %s (%s %v), want %s", f.Status, f.Detail, f.Items, wantStatus)
		}
		return f
	}
	if f := check(statusOK); !strings.Contains(f.Detail, "nothing to read") {
		t.Errorf("without Codex: %s", f.Detail)
	}
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(filepath.Join(codexHome, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if f := check(statusWarn); f.Fix != "conductor-bridge hooks install --codex" {
		t.Errorf("without hooks: fix %q", f.Fix)
	}
	if out, err := runCLI(t, "hooks", "install", "--codex", "--home", home); err != nil {
		t.Fatalf("hooks install --codex: %v\n%s", err, out)
	}
	f := check(statusWarn) // installed; only the missing codex binary warns
	if !strings.Contains(f.Detail, "Stop hook → ") || !strings.Contains(f.Detail, "PermissionRequest hook → ") ||
		!strings.Contains(strings.Join(f.Items, "\n"), "no codex on PATH") {
		t.Errorf("installed: %s %v", f.Detail, f.Items)
	}
	cfg := filepath.Join(codexHome, "config.toml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	edited := regexp.MustCompile(`trusted_hash = "[^"]*"`).ReplaceAllString(string(b), `trusted_hash = "sha256:0"`)
	if err := os.WriteFile(cfg, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := check(statusFail); !strings.Contains(f.Detail, "NOT TRUSTED") {
		t.Errorf("untrusted: %s", f.Detail)
	}
	if f := check(statusWarn, "--fix"); !strings.Contains(strings.Join(f.Items, "\n"), "hooks rewritten") {
		t.Errorf("--fix: %s %v", f.Detail, f.Items)
	}
	check(statusWarn)

	// An install from before the PermissionRequest hook: doctor says so,
	// and --fix adds it.
	old := regexp.MustCompile(`(?s)\[\[hooks\.PermissionRequest\]\].*?\n\n`).ReplaceAllString(string(b), "")
	old = regexp.MustCompile(`\[hooks\.state\."[^"]*:permission_request:0:0"\]\ntrusted_hash = "[^"]*"\n\n?`).ReplaceAllString(old, "")
	if old == string(b) {
		t.Fatalf("no PermissionRequest hook to remove:\n%s", b)
	}
	if err := os.WriteFile(cfg, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := check(statusWarn); !strings.Contains(f.Detail, "no PermissionRequest hook") || !strings.Contains(f.Fix, "--fix") {
		t.Errorf("without the PermissionRequest hook: %s (fix %q)\n%s", f.Detail, f.Fix, old)
	}
	if f := check(statusWarn, "--fix"); !strings.Contains(f.Detail, "PermissionRequest hook → ") {
		t.Errorf("--fix did not add the PermissionRequest hook: %s %v", f.Detail, f.Items)
	}
}
