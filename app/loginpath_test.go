package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const moveApp = "move the app to /Applications and open it again"

// translocated is where macOS runs an app opened from a quarantined
// download: a randomized copy under the per-user temporary folder.
const translocated = "/private/var/folders/9x/abc123/T/AppTranslocation/5C1E2A7B-0D9F-4E63-8B1A-3F2D7C6E9A01/d/Conductor Bridge.app/Contents/MacOS/conductor-bridge"

func TestCheckLoginPath(t *testing.T) {
	for _, tt := range []struct {
		name, exe string
		refused   bool
	}{
		{"translocated", translocated, true},
		{"a disk image", "/Volumes/Conductor Bridge/Conductor Bridge.app/Contents/MacOS/conductor-bridge", true},
		{"an external disk", "/Volumes/Backup/Applications/Conductor Bridge.app/Contents/MacOS/conductor-bridge", true},
		{"Applications", "/Applications/Conductor Bridge.app/Contents/MacOS/conductor-bridge", false},
		{"the home folder", filepath.Join(t.TempDir(), "conductor-bridge"), false},
		{"a folder merely named Volumes", "/Users/me/Volumes/conductor-bridge", false},
	} {
		err := checkLoginPath(tt.exe)
		if tt.refused != (err != nil) {
			t.Errorf("%s: %v, want refused %v", tt.name, err, tt.refused)
		}
		if err != nil && (!errors.Is(err, errMoveApp) || !strings.Contains(err.Error(), moveApp)) {
			t.Errorf("%s: %q does not say %q", tt.name, err, moveApp)
		}
	}
}

// copyBinary puts a copy of the conductor-bridge binary at path.
func copyBinary(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// serviceInstallAs runs `service install` with the binary at exe, on home.
func serviceInstallAs(t *testing.T, exe, home string, env []string) (string, error) {
	t.Helper()
	cmd := exec.Command(exe, "service", "install")
	cmd.Env = append(append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestServiceInstallRefusesATranslocatedBinary runs `service install`
// from a copy of the binary where App Translocation puts an app: refused,
// saying what to do, and nothing is installed.
func TestServiceInstallRefusesATranslocatedBinary(t *testing.T) {
	home := t.TempDir()
	exe := filepath.Join(t.TempDir(), strings.TrimPrefix(translocated, "/"))
	copyBinary(t, exe)
	env, calls := fakeSystemctl(t)
	out, err := serviceInstallAs(t, exe, home, env)
	if err == nil || !strings.Contains(out, moveApp) || !strings.Contains(out, "AppTranslocation") {
		t.Errorf("service install from a translocated copy: %v\n%s", err, out)
	}
	f := loginFileIn(home)
	if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s written anyway (%v)", f, err)
	}
	if c := calls(); c != "" {
		t.Errorf("systemctl called: %q", c)
	}
}

// TestServiceInstallRefusesAReadOnlyVolume mounts a read-only file system
// (a disk image stands for one on a Mac) holding the binary and asks it
// to install the login item.
func TestServiceInstallRefusesAReadOnlyVolume(t *testing.T) {
	vol := readOnlyMount(t, func(dir string) { copyBinary(t, filepath.Join(dir, "conductor-bridge")) })
	if ro, err := readOnlyVolume(vol); err != nil || !ro {
		t.Fatalf("readOnlyVolume(%s) = %v, %v on a read-only mount", vol, ro, err)
	}
	if ro, err := readOnlyVolume(t.TempDir()); err != nil || ro {
		t.Fatalf("readOnlyVolume(temp dir) = %v, %v", ro, err)
	}
	home := t.TempDir()
	env, _ := fakeSystemctl(t)
	out, err := serviceInstallAs(t, filepath.Join(vol, "conductor-bridge"), home, env)
	if err == nil || !strings.Contains(out, moveApp) || !strings.Contains(out, "read-only") {
		t.Errorf("service install from a read-only volume: %v\n%s", err, out)
	}
	if _, err := os.Stat(loginFileIn(home)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("login item written anyway (%v)", err)
	}
}

// readOnlyMount mounts a tmpfs, lets fill write into it, and remounts it
// read-only. It needs root and permission to mount: elsewhere the test
// is skipped (the path checks above run everywhere).
func readOnlyMount(t *testing.T, fill func(dir string)) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Getuid() != 0 {
		t.Skip("mounting a read-only volume needs root on Linux")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	fill(dir)
	if out, err := exec.Command("mount", "-o", "remount,ro", dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v %s", err, out)
	}
	return dir
}

// loginFileIn is serviceFile for home.
func loginFileIn(home string) string {
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "LaunchAgents", serviceName()+".plist")
	}
	return filepath.Join(home, ".config", "systemd", "user", serviceName()+".service")
}

// TestDoctorRepointsALoginItemWhoseBinaryIsGone installs the login item
// from one copy of the binary, deletes that copy (the app was moved or
// reinstalled elsewhere), and has doctor find it and, with --fix, point
// the login item at the binary doctor runs from.
func TestDoctorRepointsALoginItemWhoseBinaryIsGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the systemd unit is Linux's login item (installedProgram reads a LaunchAgent in TestInstalledProgram)")
	}
	home := t.TempDir()
	env, _ := fakeSystemctl(t)
	old := filepath.Join(t.TempDir(), "Old Place", "conductor-bridge")
	copyBinary(t, old)
	if out, err := serviceInstallAs(t, old, home, env); err != nil {
		t.Fatalf("service install: %v\n%s", err, out)
	}
	if err := os.Remove(old); err != nil {
		t.Fatal(err)
	}

	got, _, _ := runDoctor(t, home, env)
	if f := got["login-item"]; f.Status != statusFail || !strings.Contains(f.Detail, old+", which no longer exists") || !strings.Contains(f.Fix, "doctor --fix") {
		t.Errorf("login item whose binary is gone: %+v", f)
	}
	got, _, _ = runDoctor(t, home, env, "--fix")
	if f := got["login-item"]; f.Status != statusOK || !strings.Contains(f.Detail, "now starts "+binary) {
		t.Errorf("after --fix: %+v", f)
	}
	if prog, err := installedProgram(loginFileIn(home)); err != nil || prog != binary {
		t.Errorf("the unit starts %q (%v), want %q", prog, err, binary)
	}
	got, _, _ = runDoctor(t, home, env)
	if f := got["login-item"]; f.Status != statusOK || !strings.Contains(f.Detail, "starts "+binary) {
		t.Errorf("after the repair: %+v", f)
	}
}

// TestInstalledProgram reads the binary back from both kinds of login
// item, as our templates render them (a path with spaces included).
func TestInstalledProgram(t *testing.T) {
	dir := t.TempDir()
	const app = "/Applications/Conductor Bridge.app/Contents/MacOS/conductor-bridge"
	agent := filepath.Join(dir, "com.conductor-bridge.agent.plist")
	os.WriteFile(agent, []byte(renderPlist("com.conductor-bridge.agent", app, serviceArgs)), 0o644)
	unit := filepath.Join(dir, "conductor-bridge.service")
	os.WriteFile(unit, []byte("[Service]\nExecStart=/home/me/My\\x20Apps/conductor-bridge \"serve\" \"--if-not-running\"\nRestart=on-failure\n"), 0o644)
	empty := filepath.Join(dir, "empty.service")
	os.WriteFile(empty, []byte("[Unit]\n"), 0o644)
	for _, tt := range []struct {
		file, want string
		wantErr    bool
	}{
		{agent, app, false},
		{unit, "/home/me/My Apps/conductor-bridge", false},
		{empty, "", true},
		{filepath.Join(dir, "missing.plist"), "", true},
	} {
		got, err := installedProgram(tt.file)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%s: %q, %v; want %q", filepath.Base(tt.file), got, err, tt.want)
		}
	}
}
