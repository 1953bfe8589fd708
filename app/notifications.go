package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"conductorbridge/tray"
)

// notificationsReport is what the hidden `notifications-state` command
// prints: tray.NotificationsState's answer, as JSON.
type notificationsReport struct {
	State     string `json:"state,omitempty"`
	Why       string `json:"why,omitempty"`
	Fix       string `json:"fix,omitempty"`
	NotBundle bool   `json:"not_in_bundle,omitempty"`
}

// notificationsStateCmd is `conductor-bridge notifications-state`, not in
// the help: doctor runs it as the app's own binary, by its real path
// inside the bundle, when doctor itself was started through a symlink
// (the Homebrew cask's) and so is not the app macOS would answer about.
func notificationsStateCmd(stdout io.Writer) error {
	return json.NewEncoder(stdout).Encode(reportOf(tray.NotificationsState()))
}

func reportOf(state string, err error) notificationsReport {
	r := notificationsReport{State: state}
	var off *tray.NotificationsOff
	switch {
	case errors.As(err, &off):
		r.Why, r.Fix = off.Why, off.Fix
	case err != nil:
		r.Why, r.NotBundle = err.Error(), errors.Is(err, tray.ErrNotInBundle)
	}
	return r
}

// notificationsFromTheApp asks the app bundle this binary really is (it
// was started through a symlink) with notifications-state.
func notificationsFromTheApp(ctx context.Context) (notificationsReport, bool) {
	exe, err := os.Executable()
	if err != nil {
		return notificationsReport{}, false
	}
	real, err := filepath.EvalSymlinks(exe)
	if err != nil || real == exe || !strings.Contains(real, ".app/Contents/MacOS/") {
		return notificationsReport{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, real, "notifications-state").Output()
	var r notificationsReport
	if err != nil || json.Unmarshal(out, &r) != nil || r.NotBundle {
		return notificationsReport{}, false
	}
	return r, true
}

// notifications: whether the desktop (macOS: the person, for this app)
// lets the bridge show notifications, and if not, where to allow them.
func (d *doctorRun) notifications(ctx context.Context) finding {
	r := reportOf(tray.NotificationsState())
	if r.NotBundle {
		if app, ok := notificationsFromTheApp(ctx); ok {
			r = app
		}
	}
	return notificationsFinding(r)
}

func notificationsFinding(r notificationsReport) finding {
	f := finding{ID: "notifications", Title: "Notifications"}
	switch {
	case r.NotBundle:
		f.Status, f.Detail = statusWarn, "cannot ask macOS: "+r.Why+", and only the app's own notifications are allowed or not"
		f.Fix = "open Conductor Bridge.app from /Applications and run this doctor as \"/Applications/Conductor Bridge.app/Contents/MacOS/conductor-bridge\" doctor; a bridge started outside the app posts through osascript (shown as Script Editor)"
	case r.Fix != "":
		f.Status, f.Detail, f.Fix = statusWarn, r.Why, r.Fix
	case r.Why != "":
		f.Status, f.Detail = statusWarn, "no desktop notifications: "+r.Why
		f.Fix = "run inside a desktop session with a notification service"
	default:
		f.Status, f.Detail = statusOK, r.State
	}
	return f
}
