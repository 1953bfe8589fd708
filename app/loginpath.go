package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"howett.net/plist"
)

// errMoveApp ends every refusal to make a login item of a binary that
// will not be there at the next login.
var errMoveApp = errors.New("move the app to /Applications and open it again")

// checkLoginPath refuses a binary a login item cannot rely on:
//   - under /AppTranslocation/: macOS runs an app opened from a quarantined
//     download (~/Downloads, a zip) from a randomized read-only copy,
//     /private/var/folders/…/AppTranslocation/<uuid>/d/…, which is gone
//     after a restart;
//   - under /Volumes/: a disk image or an external disk, not mounted at
//     every login;
//   - on a read-only volume: a mounted disk image, wherever it is.
func checkLoginPath(exe string) error {
	switch {
	case strings.Contains(exe, "/AppTranslocation/"):
		return fmt.Errorf("%s is a temporary copy macOS made of an app opened from Downloads (App Translocation), gone after a restart: %w", exe, errMoveApp)
	case strings.HasPrefix(exe, "/Volumes/"):
		return fmt.Errorf("%s is on a disk image or an external disk (/Volumes), which may not be there at login: %w", exe, errMoveApp)
	}
	if ro, err := readOnlyVolume(exe); err == nil && ro {
		return fmt.Errorf("%s is on a read-only volume (a disk image?): %w", exe, errMoveApp)
	}
	return nil
}

// installedProgram reads which binary the login item in file starts: a
// LaunchAgent's ProgramArguments[0] (or Program), or a systemd unit's
// ExecStart, where kardianos/service writes the path with spaces as \x20.
func installedProgram(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	if filepath.Ext(file) == ".plist" {
		var p struct {
			Program          string
			ProgramArguments []string
		}
		if _, err := plist.Unmarshal(b, &p); err != nil {
			return "", fmt.Errorf("%s: %w", file, err)
		}
		if p.Program != "" {
			return p.Program, nil
		}
		if len(p.ProgramArguments) > 0 && p.ProgramArguments[0] != "" {
			return p.ProgramArguments[0], nil
		}
		return "", fmt.Errorf("%s names no program", file)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		cmd, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "ExecStart=")
		if !ok {
			continue
		}
		path, _, _ := strings.Cut(strings.TrimLeft(cmd, "-@:+!"), " ")
		if path = strings.ReplaceAll(strings.Trim(path, `"`), `\x20`, " "); path != "" {
			return path, nil
		}
	}
	return "", fmt.Errorf("%s has no ExecStart", file)
}

// loginItem: installed or not; when installed, whether the binary it
// starts is still there and will be after a restart. With --fix, a login
// item whose binary is gone is pointed at this one.
func (d *doctorRun) loginItem() finding {
	f := finding{ID: "login-item", Title: "Login item"}
	file, _ := serviceFile()
	if !(loginItem{}).Installed() {
		f.Status, f.Detail = statusWarn, "Conductor Bridge does not start at login"
		f.Fix = "conductor-bridge service install (or Start at login in the menu bar)"
		return f
	}
	prog, err := installedProgram(file)
	if err != nil {
		f.Status, f.Detail = statusWarn, "cannot tell which program the login item starts: "+err.Error()
		f.Fix = "conductor-bridge service uninstall, then conductor-bridge service install"
		return f
	}
	problem := ""
	if _, err := os.Stat(prog); err != nil {
		problem = "it starts " + prog + ", which no longer exists: nothing starts at login"
	} else if err := checkLoginPath(prog); err != nil {
		problem = "it starts " + prog + ", which will not be there after a restart"
	}
	if problem == "" && holdsItsPort(file) {
		f.Status, f.Detail = statusOK, "starts "+prog+" at login ("+file+")"
		return f
	}
	if problem == "" {
		// Installed by a version before the login item held the port.
		if d.fix {
			if _, err := repointLoginItem(); err == nil {
				f.Status, f.Detail = statusOK, "installed again: it now holds the bridge's port while the bridge is not running"
				return f
			}
		}
		f.Status, f.Detail = statusWarn, "starts "+prog+" at login ("+file+"), but an older version installed it: it does not hold the bridge's port while the bridge is not running"
		f.Fix = "conductor-bridge doctor --fix (installs it again), or: conductor-bridge service uninstall, then install"
		return f
	}
	if d.fix {
		exe, err := repointLoginItem()
		if err == nil {
			f.Status, f.Detail = statusOK, problem+" — now starts "+exe
			return f
		}
		problem += "; not repointed: " + err.Error()
	}
	f.Status, f.Detail = statusFail, problem
	f.Fix = "conductor-bridge doctor --fix (points it at this binary), from the app in /Applications"
	return f
}

// repointLoginItem installs the login item afresh for this binary, which
// must itself be fit for one.
func repointLoginItem() (string, error) {
	exe, err := installable()
	if err != nil {
		return "", err
	}
	l := loginItem{}
	if err := l.Uninstall(); err != nil {
		return "", err
	}
	if err := l.Install(); err != nil {
		return "", err
	}
	return exe, nil
}
