package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"conductorbridge/packaging/units"
)

// The login item on Linux also holds the bridge's port: a systemd user
// socket unit beside the service (packaging/units says why). launchd's
// equivalent is inside the LaunchAgent plist itself.

// socketUnitFile is where the socket unit goes ("" off Linux).
func socketUnitFile() (string, error) {
	if runtime.GOOS != "linux" {
		return "", nil
	}
	f, err := serviceFile()
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(f, ".service") + ".socket", nil
}

// holdsItsPort reports whether the installed login item (its file is
// service) holds the bridge's port: a LaunchAgent with a Sockets entry, or
// a systemd unit with its socket unit beside it. One installed by an
// earlier version does not.
func holdsItsPort(service string) bool {
	if runtime.GOOS == "darwin" {
		b, err := os.ReadFile(service)
		return err == nil && strings.Contains(string(b), "<key>Sockets</key>")
	}
	f, err := socketUnitFile()
	if err != nil || f == "" {
		return false
	}
	_, err = os.Stat(f)
	return err == nil
}

// installSocketUnit writes the socket unit and enables it, so that from
// the next login on systemd holds the port. It is not started now: the
// bridge that asked for the login item holds the port itself.
func installSocketUnit() error {
	f, err := socketUnitFile()
	if err != nil || f == "" {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(f, []byte(units.SystemdSocket), 0o644); err != nil {
		return err
	}
	if out, err := exec.Command("systemctl", "enable", "--user", filepath.Base(f)).CombinedOutput(); err != nil {
		return fmt.Errorf("systemctl enable %s: %w: %s", filepath.Base(f), err, out)
	}
	return nil
}

// uninstallSocketUnit disables and removes the socket unit. A bridge
// running on its socket keeps its own copy of the listener until it quits.
func uninstallSocketUnit() error {
	f, err := socketUnitFile()
	if err != nil || f == "" {
		return err
	}
	if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	// Disabling a unit systemd does not know (no user session) fails:
	// the file is what enables it at the next login.
	exec.Command("systemctl", "disable", "--user", filepath.Base(f)).Run()
	if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
