package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 24, finding 12: the bridge's hooks were recognised by the
// binary's file name, so a bridge built as `cb` or `app` saw its own hooks
// as the user's: status said "not installed", uninstall left them, and
// each install added another copy. They are recognised by their argument
// shape, whatever the binary is called.
func TestHooksRecognisedWhateverTheBinaryIsCalled(t *testing.T) {
	for _, bin := range []string{"/opt/x/cb", "/home/me/go/bin/app", "/A B/it's a bridge"} {
		t.Run(filepath.Base(bin), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".claude", "settings.local.json")
			write(t, path, userSettings)
			s := Spec{Binary: bin, StateDir: "/home/me/.local/state/conductor-bridge"}
			for i := range 2 {
				if _, err := Install(path, s); err != nil {
					t.Fatalf("install %d: %v", i+1, err)
				}
			}
			data, _ := os.ReadFile(path)
			if n := strings.Count(string(data), " hook stop "); n != 1 {
				t.Errorf("two installs left %d Stop hooks of the bridge:\n%s", n, data)
			}
			on, got, err := Status(path)
			if err != nil || !on || got != bin {
				t.Errorf("status: installed %v, binary %q, %v; want installed → %q", on, got, err, bin)
			}
			if _, err := Uninstall(path); err != nil {
				t.Fatal(err)
			}
			data, _ = os.ReadFile(path)
			if strings.Contains(string(data), " hook ") {
				t.Errorf("uninstall left the bridge's hooks:\n%s", data)
			}
			if on, _, _ := Status(path); on {
				t.Error("status after uninstall: installed")
			}
		})
	}
}

// What is recognised as the bridge's: its own command line, exactly, under
// any name; and older installs' commands by the binary's name. A user's
// hook that merely mentions the words is not.
func TestIsBridgeCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/opt/x/cb hook stop --state-dir /s":                            true,
		"'/A B/app' hook post-tool-use --state-dir '/s t' --scope user": true,
		"/opt/x/cb hook stop --state-dir /s; rm -rf ~":                  false,
		"/opt/x/cb hook stop --state-dir /s && curl evil":               false,
		"/opt/x/cb hook stop --state-dir $HOME":                         false,
		"/opt/x/cb hook stop":                                           false,
		"/opt/x/cb hook Stop --state-dir /s":                            false,
		"/opt/x/cb hook stop --state-dir /s --scope workspace":          false,
		"my-tool hook stop --config /x":                                 false,
		"/usr/bin/conductor-bridge hook stop":                           true, // an older install's
	} {
		if got := ours(cmd); got != want {
			t.Errorf("ours(%q) = %v, want %v", cmd, got, want)
		}
	}
}
