package codex

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const userConfig = `# my Codex settings
model = "gpt-5.5" # inline comment kept

[projects."/work/app"]
trust_level = "trusted"

[[hooks.Stop]]
hooks = [{ type = "command", command = "my-own-stop-hook" }]

[[hooks.PermissionRequest]]
matcher = "Bash"
hooks = [{ type = "command", command = "my-own-approver" }]

[tui]
notifications = true
`

var spec = HookSpec{Stop: "'/opt/cb/conductor-bridge' hook codex-stop --state-dir '/s d'",
	Permission: "'/opt/cb/conductor-bridge' hook permission-request --state-dir '/s d'", Notify: []string{"/opt/cb/conductor-bridge", "hook", "codex-notify"}}

func TestInstallMergesAndUninstallRestores(t *testing.T) {
	t.Parallel()
	h := t.TempDir()
	path := ConfigPath(h)
	if err := os.WriteFile(path, []byte(userConfig), 0o640); err != nil {
		t.Fatal(err)
	}
	changed, err := InstallHooks(h, spec)
	if err != nil || !changed {
		t.Fatalf("install: %v %v", changed, err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	if !strings.Contains(got, userConfig) {
		t.Errorf("the user's lines are not kept byte for byte:\n%s", got)
	}
	var doc struct {
		Model  string
		Notify []string
		Hooks  struct {
			Stop              []struct{ Hooks []struct{ Command string } }
			PermissionRequest []struct{ Hooks []struct{ Command string } }
		}
		Tui struct{ Notifications bool }
	}
	if _, err := toml.Decode(got, &doc); err != nil {
		t.Fatalf("installed config is not TOML: %v\n%s", err, got)
	}
	if doc.Model != "gpt-5.5" || !doc.Tui.Notifications || len(doc.Hooks.Stop) != 2 ||
		doc.Hooks.Stop[0].Hooks[0].Command != "my-own-stop-hook" || doc.Hooks.Stop[1].Hooks[0].Command != spec.Stop ||
		strings.Join(doc.Notify, " ") != strings.Join(spec.Notify, " ") ||
		len(doc.Hooks.PermissionRequest) != 2 || doc.Hooks.PermissionRequest[0].Hooks[0].Command != "my-own-approver" ||
		doc.Hooks.PermissionRequest[1].Hooks[0].Command != spec.Permission {
		t.Errorf("parsed: %+v", doc)
	}
	abs, _ := filepath.Abs(path)
	if !strings.Contains(got, `[hooks.state."`+abs+`:stop:1:0"]`) {
		t.Errorf("trust key does not name group 1:\n%s", got)
	}
	if !strings.Contains(got, `[hooks.state."`+abs+`:permission_request:1:0"]`) {
		t.Errorf("the PermissionRequest hook's trust key does not name group 1:\n%s", got)
	}
	st, err := HooksStatus(h)
	if err != nil || !st.Installed || !st.Trusted || st.Stop != spec.Stop || st.Permission != spec.Permission || len(st.Notify) != 3 || st.UserNotify != nil {
		t.Errorf("status: %+v %v", st, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode changed to %v", fi.Mode().Perm())
	}
	if changed, err := InstallHooks(h, spec); err != nil || changed {
		t.Errorf("second install changed the file: %v %v", changed, err)
	}
	// A new binary path replaces the old block rather than adding one.
	moved := spec
	moved.Stop = "/new/conductor-bridge hook codex-stop"
	if _, err := InstallHooks(h, moved); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if strings.Count(string(data), blockBegin) != 2 || strings.Contains(string(data), spec.Stop) {
		t.Errorf("reinstall:\n%s", data)
	}
	if changed, err := UninstallHooks(h); err != nil || !changed {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	data, _ = os.ReadFile(path)
	if string(data) != userConfig {
		t.Errorf("uninstall did not restore the file:\n%q\nwant\n%q", data, userConfig)
	}
	if st, _ := HooksStatus(h); st.Installed || st.Stop != "" || st.Permission != "" || st.Notify != nil {
		t.Errorf("status after uninstall: %+v", st)
	}
}

func TestInstallIntoNothingAndUninstallRemovesFile(t *testing.T) {
	t.Parallel()
	h := filepath.Join(t.TempDir(), ".codex")
	if _, err := InstallHooks(h, spec); err != nil {
		t.Fatal(err)
	}
	if st, err := HooksStatus(h); err != nil || !st.Trusted {
		t.Fatalf("status: %+v %v", st, err)
	}
	if _, err := UninstallHooks(h); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ConfigPath(h)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("config.toml the bridge created is still there: %v", err)
	}
	if changed, err := UninstallHooks(h); err != nil || changed {
		t.Errorf("uninstall with no file: %v %v", changed, err)
	}
}

func TestUserNotifyIsKept(t *testing.T) {
	t.Parallel()
	h := t.TempDir()
	mine := "notify = [\"my-notifier\"]\n"
	if err := os.WriteFile(ConfigPath(h), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallHooks(h, spec); err != nil {
		t.Fatal(err)
	}
	st, err := HooksStatus(h)
	if err != nil || st.Notify != nil || len(st.UserNotify) != 1 || st.UserNotify[0] != "my-notifier" || !st.Trusted {
		t.Errorf("status: %+v %v", st, err)
	}
}

func TestConflictsLeaveTheFileAlone(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"inline Stop": "[hooks]\nStop = [{ hooks = [{ type = \"command\", command = \"x\" }] }]\n",
		"not TOML":    "model = \n[[[\n",
		"hooks value": "hooks = 3\n",
	} {
		h := t.TempDir()
		if err := os.WriteFile(ConfigPath(h), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		changed, err := InstallHooks(h, spec)
		if err == nil || changed {
			t.Errorf("%s: installed anyway (%v)", name, err)
		}
		if data, _ := os.ReadFile(ConfigPath(h)); string(data) != body {
			t.Errorf("%s: file changed", name)
		}
	}
}

// TestUntrustedPermissionHook: a PermissionRequest hook whose trust hash no
// longer matches it (edited by hand) makes the status untrusted, so doctor
// says Codex will not run it.
func TestUntrustedPermissionHook(t *testing.T) {
	t.Parallel()
	h := t.TempDir()
	if _, err := InstallHooks(h, spec); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ConfigPath(h))
	edited := strings.Replace(string(data), "hook permission-request", "hook permission-request --verbose", 1)
	if err := os.WriteFile(ConfigPath(h), []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := HooksStatus(h)
	if err != nil || st.Trusted || st.Stop != spec.Stop || !strings.Contains(st.Permission, "--verbose") {
		t.Errorf("status: %+v %v", st, err)
	}
}

// TestTrustHash pins the hash of one hook (the scheme itself is proved
// against the real 0.169 by TestStopHookDeliversToBusySession, which fails
// when Codex does not trust the hook).
func TestTrustHash(t *testing.T) {
	t.Parallel()
	a := trustHash("stop", "echo hi", 10)
	if a != "sha256:2a05b889a7ae70a6cb043aabb2bcfb6ce36c120c3e60d0fd65e4d297c36f1e00" {
		t.Fatalf("hash %q", a)
	}
	if a == trustHash("stop", "echo hi", 11) || a == trustHash("stop", "echo ho", 10) || a != trustHash("stop", "echo hi", 10) {
		t.Error("hash does not follow its inputs")
	}
	// The currentHash real 0.169 reported (app-server hooks/list) for a
	// PermissionRequest hook of config.toml: the event goes in snake case.
	if h := trustHash("permission_request", "cat > /tmp/TestScratchApproval3050069548/001/perm.json", 10); h != "sha256:f6a3c2f979a8b893d5169c82c8b9bb428c867636f9946442cb43ce161fa7a445" {
		t.Errorf("permission_request hash %q", h)
	}
	// serde_json leaves <, > and & alone; so must we.
	if trustHash("stop", "a && b > c", 10) == trustHash("stop", `a \u0026\u0026 b \u003e c`, 10) {
		t.Error("HTML escaping leaks into the hash")
	}
}
