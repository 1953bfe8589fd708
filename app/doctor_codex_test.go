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
// file edited by hand), and --fix makes them trusted again.
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
	if !strings.Contains(f.Detail, "Stop hook → ") || !strings.Contains(strings.Join(f.Items, "\n"), "no codex on PATH") {
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
}
