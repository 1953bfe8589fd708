package nativehost

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestBrowserFolders: where each browser reads a user's hosts. The
// expected paths are written out from the sources cited in Browsers (the
// native-messaging docs' own list for Chrome and Chromium; Chromium's
// chrome_paths_linux.cc and chrome_paths_mac.mm; brave-core's override;
// KeePassXC's installer for Brave and Edge), not derived from the code.
func TestBrowserFolders(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		goos string
		env  map[string]string
		want map[string]string // browser → manifest path
	}{
		{"linux", nil, map[string]string{
			"Google Chrome":  "/h/.config/google-chrome/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Chromium":       "/h/.config/chromium/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Brave":          "/h/.config/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Microsoft Edge": "/h/.config/microsoft-edge/NativeMessagingHosts/com.conductor_bridge.host.json",
		}},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "/x", "CHROME_CONFIG_HOME": "/c"}, map[string]string{
			"Google Chrome":  "/c/google-chrome/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Chromium":       "/c/chromium/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Brave":          "/x/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Microsoft Edge": "/x/microsoft-edge/NativeMessagingHosts/com.conductor_bridge.host.json",
		}},
		{"linux", map[string]string{"XDG_CONFIG_HOME": "relative"}, map[string]string{
			"Chromium": "/h/.config/chromium/NativeMessagingHosts/com.conductor_bridge.host.json",
		}},
		{"darwin", nil, map[string]string{
			"Google Chrome":         "/h/Library/Application Support/Google/Chrome/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Chromium":              "/h/Library/Application Support/Chromium/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Brave":                 "/h/Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Microsoft Edge":        "/h/Library/Application Support/Microsoft Edge/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Arc":                   "/h/Library/Application Support/Arc/User Data/NativeMessagingHosts/com.conductor_bridge.host.json",
			"Arc (Chrome's folder)": "/h/Library/Application Support/Google/Chrome/NativeMessagingHosts/com.conductor_bridge.host.json",
		}},
		{"windows", nil, map[string]string{}},
	}
	for _, tt := range tests {
		got := map[string]Browser{}
		for _, b := range Browsers("/h", tt.goos, env(tt.env)) {
			got[b.Name] = b
			if filepath.Dir(b.Manifest()) != b.Hosts {
				t.Errorf("%s %s: manifest %s is not in %s", tt.goos, b.Name, b.Manifest(), b.Hosts)
			}
		}
		for name, want := range tt.want {
			if got[name].Manifest() != want {
				t.Errorf("%s %v %s: %q, want %q", tt.goos, tt.env, name, got[name].Manifest(), want)
			}
		}
		if tt.env == nil && len(got) != len(tt.want) {
			t.Errorf("%s: %d browsers, want %d", tt.goos, len(got), len(tt.want))
		}
	}
	// Arc's second entry is installed only when Arc itself is there.
	for _, b := range Browsers("/h", "darwin", env(nil)) {
		if b.Name == "Arc (Chrome's folder)" && b.Profile != "/h/Library/Application Support/Arc/User Data" {
			t.Errorf("Arc's entry in Chrome's folder depends on %s", b.Profile)
		}
	}
}

func TestManifestOrigins(t *testing.T) {
	m := NewManifest("/bin/cb", []string{own, own + "/", "chrome-extension://other"})
	want := []string{own + "/", "chrome-extension://other/"}
	if len(m.AllowedOrigins) != 2 || m.AllowedOrigins[0] != want[0] || m.AllowedOrigins[1] != want[1] {
		t.Errorf("allowed_origins %q, want %q (Chrome's form, once each)", m.AllowedOrigins, want)
	}
	if !m.Allows(own) || !m.Allows(own+"/") || m.Allows("chrome-extension://evil") {
		t.Error("Allows")
	}
	if m.Name != HostName || m.Type != "stdio" || m.Path != "/bin/cb" {
		t.Errorf("manifest %+v", m)
	}
	// The docs' rule for a host's name: lowercase letters, digits,
	// underscores and dots, no dot at either end or twice in a row.
	if !regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)*$`).MatchString(HostName) {
		t.Errorf("host name %q breaks Chrome's rule", HostName)
	}
}

// TestWriteManifestSaysWhatItCreated: the folders it made, outer first
// (Arc's entry in Chrome's folder may create Google/Chrome/… on a Mac
// without Chrome), and only those.
func TestWriteManifestSaysWhatItCreated(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "Google", "Chrome", "NativeMessagingHosts", HostName+".json")
	created, err := WriteManifest(path, NewManifest("/bin/cb", []string{own}))
	want := []string{filepath.Join(root, "Google"), filepath.Join(root, "Google", "Chrome"), filepath.Join(root, "Google", "Chrome", "NativeMessagingHosts")}
	if err != nil || !slices.Equal(created, want) {
		t.Fatalf("created %q, %v; want %q", created, err, want)
	}
	m, err := ReadManifest(path)
	if err != nil || m.Path != "/bin/cb" || !m.Allows(own) {
		t.Errorf("read back %+v, %v", m, err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o644 {
		t.Errorf("mode %v: the browser must read it", info.Mode())
	}
	if created, err := WriteManifest(path, NewManifest("/bin/cb2", []string{own})); err != nil || len(created) != 0 {
		t.Errorf("rewrite created %q, %v", created, err)
	}
}
