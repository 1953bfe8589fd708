//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/nativehost"
	"conductorbridge/testkit/dbustest"
)

// TestMenuInstallsTheChromeExtension: the menu's "Install Chrome
// extension…" does what `conductor-bridge extension install` does — the
// unpacked extension and the native host manifest, here for Chromium — then
// shows the folder and says the clicks left to make.
func TestMenuInstallsTheChromeExtension(t *testing.T) {
	bus, watcher, notes := trayDesktop(t)
	home := t.TempDir()
	chromium := filepath.Join(home, ".config", "chromium")
	if err := os.MkdirAll(chromium, 0o700); err != nil {
		t.Fatal(err)
	}
	pathEnv, record := standInOpener(t)
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address, pathEnv,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "CHROME_CONFIG_HOME=" + filepath.Join(home, ".config")})

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, item := trayIcon(ctx, t, bus, watcher, p)
	root := menuWith(ctx, t, conn, item, "Install Chrome extension…")
	install, _ := root.Find("Install Chrome extension…")
	if err := dbustest.Click(conn, item, install.ID); err != nil {
		t.Fatal(err)
	}
	n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Summary, "Chrome side panel") })
	if err != nil {
		t.Fatalf("no notification: %v\n%s", err, p.log)
	}
	ext := filepath.Join(p.stateDir(), "chrome-extension")
	if !strings.Contains(n.Body, "Load unpacked") || !strings.Contains(n.Body, ext) {
		t.Errorf("notification: %+v", n)
	}
	m, err := nativehost.ReadManifest(filepath.Join(chromium, "NativeMessagingHosts", nativehost.HostName+".json"))
	if err != nil || m.Path != binary || !m.Allows(ownExtension) {
		t.Errorf("Chromium's host manifest: %+v %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(ext, "panel.js")); err != nil {
		t.Errorf("the unpacked extension: %v", err)
	}
	// The folder is shown, through the opener.
	var argv []byte
	for argv == nil && ctx.Err() == nil {
		argv, _ = os.ReadFile(record)
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(string(argv), ext) {
		t.Errorf("opener argv %q, want the extension's folder", argv)
	}
}
