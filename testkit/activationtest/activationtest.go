// Package activationtest finds systemd's own socket-activation tool,
// systemd-socket-activate, for the tests that hand a listening socket to a
// process as the login item's socket unit does. Without it a test skips,
// and under CI=true it fails (CI installs Debian's systemd package).
package activationtest

import (
	"os"
	"os/exec"
	"testing"
)

// Tool returns systemd-socket-activate's path.
func Tool(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("systemd-socket-activate")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("systemd-socket-activate is missing under CI: %v", err)
		}
		t.Skip("no systemd-socket-activate")
	}
	return p
}
