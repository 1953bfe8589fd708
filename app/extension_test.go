package main

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"conductorbridge/assets"
	"conductorbridge/bridge/nativehost"
)

// browserHome is a fake Linux home where Google Chrome, Chromium and Brave
// have run (their folders exist) and Edge has not; Chromium already has a
// native host of another program. The bridge's state folder exists.
func browserHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for _, d := range []string{".config/google-chrome", ".config/chromium/NativeMessagingHosts", ".config/BraveSoftware/Brave-Browser",
		".local/state/conductor-bridge"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	other := filepath.Join(home, ".config/chromium/NativeMessagingHosts/org.other.host.json")
	if err := os.WriteFile(other, []byte(`{"name":"org.other.host"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return home
}

// browserEnv is a person's environment on home, with no XDG overrides.
func browserEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=", "CHROME_CONFIG_HOME="}
}

// tree lists every file and folder under root with its contents.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const storeCopy = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"

func TestExtensionInstallAndUninstall(t *testing.T) {
	home := browserHome(t)
	before := tree(t, home)
	for range 2 { // a second install changes nothing
		out, err := runCLIEnv(t, browserEnv(home), "extension", "install", "--home", home, "--allow-origin", storeCopy)
		if err != nil || !strings.Contains(out, "native host installed for Google Chrome, Chromium, Brave\n") {
			t.Fatalf("install: %v\n%s", err, out)
		}
	}
	for _, p := range []string{".config/google-chrome", ".config/chromium", ".config/BraveSoftware/Brave-Browser"} {
		m, err := nativehost.ReadManifest(filepath.Join(home, p, "NativeMessagingHosts", "com.conductor_bridge.host.json"))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"chrome-extension://" + assets.ExtensionID + "/", storeCopy + "/"}
		if m.Name != "com.conductor_bridge.host" || m.Type != "stdio" || m.Path != binary || !slices.Equal(m.AllowedOrigins, want) {
			t.Errorf("%s: manifest %+v", p, m)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".config/microsoft-edge")); err == nil {
		t.Error("installed for Edge, which never ran here")
	}
	state := filepath.Join(home, ".local/state/conductor-bridge")
	ext, _ := os.ReadFile(filepath.Join(state, "chrome-extension", "manifest.json"))
	if !strings.Contains(string(ext), `"nativeMessaging"`) || !strings.Contains(string(ext), `"key"`) {
		t.Errorf("unpacked extension's manifest: %s", ext)
	}
	if info, err := os.Stat(filepath.Join(state, extensionRecordFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("install record: %v %v", info, err)
	}
	// The bridge on this state now counts the store copy as signing in
	// through the host.
	if got := nativeOrigins(state); !slices.Equal(got, []string{ownExtension, storeCopy}) {
		t.Errorf("native origins %q", got)
	}

	out, err := runCLIEnv(t, browserEnv(home), "extension", "uninstall", "--home", home)
	if err != nil || strings.Count(out, "removed ") != 4 {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	after := tree(t, home)
	if !maps.Equal(before, after) {
		for k := range after {
			if _, ok := before[k]; !ok {
				t.Errorf("left behind: %s", k)
			}
		}
		for k, v := range before {
			if after[k] != v {
				t.Errorf("changed or removed: %s", k)
			}
		}
	}
	if out, err := runCLIEnv(t, browserEnv(home), "extension", "uninstall", "--home", home); err != nil || !strings.Contains(out, "not installed") {
		t.Errorf("second uninstall: %v %s", err, out)
	}
}

// TestExtensionUninstallLeavesWhatIsNotItsOwn: a file the person put in
// the extension's folder, and a manifest another program wrote over the
// bridge's, stay.
func TestExtensionUninstallLeavesWhatIsNotItsOwn(t *testing.T) {
	home := browserHome(t)
	if out, err := runCLIEnv(t, browserEnv(home), "extension", "install", "--home", home); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	extDir := filepath.Join(home, ".local/state/conductor-bridge/chrome-extension")
	notes := filepath.Join(extDir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o600)
	replaced := filepath.Join(home, ".config/google-chrome/NativeMessagingHosts/com.conductor_bridge.host.json")
	os.WriteFile(replaced, []byte(`{"name":"com.someone.else"}`), 0o644)
	if out, err := runCLIEnv(t, browserEnv(home), "extension", "uninstall", "--home", home); err != nil {
		t.Fatalf("uninstall: %v\n%s", err, out)
	}
	for _, p := range []string{notes, replaced} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
	if _, err := os.Stat(filepath.Join(extDir, "panel.js")); err == nil {
		t.Error("the extension's own files stayed")
	}
	if _, err := os.Stat(filepath.Join(home, ".config/chromium/NativeMessagingHosts/com.conductor_bridge.host.json")); err == nil {
		t.Error("Chromium's manifest stayed")
	}
}

// TestDoctorChecksTheNativeHost: doctor says when the side panel is not
// installed, when a manifest calls a binary that was moved away or does
// not allow the bridge's extension, and --fix rewrites it.
func TestDoctorChecksTheNativeHost(t *testing.T) {
	home := browserHome(t)
	env := browserEnv(home)
	f, _, _ := runDoctor(t, home, env)
	if c := f["chrome-extension"]; c.Status != statusWarn || !strings.Contains(c.Detail, "not installed") ||
		!strings.Contains(c.Fix, "extension install") {
		t.Errorf("not installed: %+v", c)
	}

	// Installed by a binary that has since moved away.
	old := filepath.Join(t.TempDir(), "Old Place", "conductor-bridge")
	os.MkdirAll(filepath.Dir(old), 0o755)
	b, _ := os.ReadFile(binary)
	if err := os.WriteFile(old, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := runEnv(t, old, env, "extension", "install", "--home", home); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	if f, _, _ := runDoctor(t, home, env); f["chrome-extension"].Status != statusOK {
		t.Fatalf("installed: %+v", f["chrome-extension"])
	}
	os.Remove(old)
	// And Chromium's manifest lost the bridge's extension.
	chromium := filepath.Join(home, ".config/chromium/NativeMessagingHosts/com.conductor_bridge.host.json")
	m, _ := nativehost.ReadManifest(chromium)
	m.AllowedOrigins = []string{storeCopy + "/"}
	nativehost.WriteManifest(chromium, m)

	f, ok, code := runDoctor(t, home, env)
	c := f["chrome-extension"]
	items := strings.Join(c.Items, "\n")
	if ok || code != 1 || c.Status != statusFail || !strings.Contains(items, "Google Chrome: calls "+old+", which is not there") ||
		!strings.Contains(items, "Chromium: does not allow "+ownExtension) || !strings.Contains(c.Fix, "doctor --fix") {
		t.Errorf("broken: ok=%v code=%d %+v", ok, code, c)
	}

	f, _, _ = runDoctor(t, home, env, "--fix")
	if c := f["chrome-extension"]; c.Status != statusOK || !strings.Contains(c.Detail, "rewritten to call "+binary) {
		t.Errorf("--fix: %+v", c)
	}
	for _, p := range []string{chromium, filepath.Join(home, ".config/google-chrome/NativeMessagingHosts/com.conductor_bridge.host.json")} {
		if m, err := nativehost.ReadManifest(p); err != nil || m.Path != binary || !m.Allows(ownExtension) {
			t.Errorf("after --fix, %s: %+v %v", p, m, err)
		}
	}
	if f, _, _ := runDoctor(t, home, env); f["chrome-extension"].Status != statusOK {
		t.Errorf("after --fix: %+v", f["chrome-extension"])
	}

	// No Chromium-family browser at all.
	bare := t.TempDir()
	if f, _, _ := runDoctor(t, bare, browserEnv(bare)); !strings.Contains(f["chrome-extension"].Detail, "no Chromium-family browser") {
		t.Errorf("no browser: %+v", f["chrome-extension"])
	}
}

// runEnv runs the program at bin with extra environment.
func runEnv(t testing.TB, bin string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME="), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
