package hooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var spec = Spec{Binary: "/opt/Conductor Bridge.app/Contents/MacOS/conductor-bridge", StateDir: "/home/me/.local/state/conductor-bridge"}

const userSettings = `{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
  },
  "model": "opus"
}
`

func TestInstallMergesAndUninstallRestores(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(userSettings), 0o600)

	changed, err := Install(path, spec)
	if err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	b, _ := os.ReadFile(path)
	var got struct {
		Permissions json.RawMessage
		Model       string
		Hooks       map[string][]group
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("installed file is not JSON: %v\n%s", err, b)
	}
	if got.Model != "opus" || !strings.Contains(string(got.Permissions), "npm test") {
		t.Errorf("user settings lost:\n%s", b)
	}
	if len(got.Hooks["Stop"]) != 2 || got.Hooks["Stop"][0].Hooks[0].Command != "say done" {
		t.Errorf("user's Stop hook lost or moved: %+v", got.Hooks["Stop"])
	}
	if len(got.Hooks["PreToolUse"]) != 1 {
		t.Errorf("user's PreToolUse hook lost")
	}
	ourStop := got.Hooks["Stop"][1].Hooks
	if len(ourStop) != 2 || !ourStop[1].AsyncRewake || !strings.HasPrefix(ourStop[0].Command, "'/opt/Conductor Bridge.app/") ||
		!strings.Contains(ourStop[0].Command, " hook stop --state-dir ") {
		t.Errorf("bridge Stop hooks: %+v", ourStop)
	}
	for _, ev := range eventOrder {
		if len(got.Hooks[ev]) == 0 {
			t.Errorf("no %s hook", ev)
		}
	}
	if i, j := strings.Index(string(b), "permissions"), strings.Index(string(b), "model"); i > j {
		t.Error("key order not kept")
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file mode changed: %v", st.Mode())
	}

	// Idempotent.
	if changed, err := Install(path, spec); err != nil || changed {
		t.Errorf("second install changed the file: %v %v", changed, err)
	}
	installed, bin, _ := Status(path)
	if !installed || bin != spec.Binary {
		t.Errorf("status: %v %q", installed, bin)
	}
	// A moved binary: install again replaces, never duplicates.
	moved := Spec{Binary: "/usr/local/bin/conductor-bridge", StateDir: spec.StateDir}
	Install(path, moved)
	b, _ = os.ReadFile(path)
	if strings.Count(string(b), "hook stop") != 1 || !strings.Contains(string(b), "/usr/local/bin/conductor-bridge hook") {
		t.Errorf("reinstall duplicated or kept the old binary:\n%s", b)
	}

	if changed, err := Uninstall(path); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	b, _ = os.ReadFile(path)
	var want, after any
	json.Unmarshal([]byte(userSettings), &want)
	json.Unmarshal(b, &after)
	wb, _ := json.Marshal(want)
	ab, _ := json.Marshal(after)
	if string(wb) != string(ab) {
		t.Errorf("uninstall did not restore the user's settings:\n%s\nwant\n%s", ab, wb)
	}
	if installed, _, _ := Status(path); installed {
		t.Error("still installed after uninstall")
	}
}

func TestInstallIntoNothingAndUninstallRemovesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ws", ".claude", "settings.local.json")
	if _, err := Install(path, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := Uninstall(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Error("file with only our hooks not removed")
	}
	if changed, err := Uninstall(path); err != nil || changed {
		t.Errorf("uninstall with no file: %v %v", changed, err)
	}
}

func TestUnparseableSettingsLeftAlone(t *testing.T) {
	for _, content := range []string{`{"hooks": `, `[1,2]`, `{"hooks": {"Stop": "not a list"}}`, `{"a":1} trailing`} {
		path := filepath.Join(t.TempDir(), "settings.local.json")
		os.WriteFile(path, []byte(content), 0o644)
		if _, err := Install(path, spec); err == nil {
			t.Errorf("%q: install succeeded", content)
		}
		if _, err := Uninstall(path); err == nil {
			t.Errorf("%q: uninstall succeeded", content)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("%q: file changed to %q", content, b)
		}
	}
}

func TestOursAndQuote(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/usr/bin/conductor-bridge hook stop --state-dir /x":     true,
		"'/A B/conductor-bridge' hook rewake --state-dir '/x y'": true,
		`"C:\cb\conductor-bridge.exe" hook stop`:                 true,
		"conductor-bridge serve":                                 false,
		"echo conductor-bridge":                                  false,
		"/usr/bin/my-conductor-bridge-notes hook":                false,
		"say done": false,
	} {
		if got := ours(cmd); got != want {
			t.Errorf("ours(%q) = %v", cmd, got)
		}
	}
	if q := quote("/a b/it's"); q != `'/a b/it'\''s'` {
		t.Errorf("quote = %s", q)
	}
	if commandBinary(`'/a b/it'\''s' hook stop`) != "/a b/it's" {
		t.Error("commandBinary does not undo quote")
	}
}
