package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kardianos/service"
	"github.com/rs/zerolog"

	"conductorbridge/packaging/units"
	"conductorbridge/tray"
)

// The login item starts the bridge when the person logs in: a LaunchAgent
// on macOS, a systemd --user unit on Linux, installed with
// kardianos/service and our own templates (packaging/units says why).

// serviceName is the LaunchAgent's label, or the systemd unit's name.
func serviceName() string {
	if runtime.GOOS == "darwin" {
		return "com.conductor-bridge.agent"
	}
	return "conductor-bridge"
}

// serviceArgs: --if-not-running makes a start at login that finds the
// bridge already running exit 0, which both managers leave alone.
var serviceArgs = []string{"serve", "--if-not-running"}

type noProgram struct{} // kardianos wants one; the bridge never runs through it

func (noProgram) Start(service.Service) error { return nil }
func (noProgram) Stop(service.Service) error  { return nil }

// newService returns the login item's service for the binary exe.
func newService(exe string) (service.Service, error) {
	cfg := &service.Config{
		Name:        serviceName(),
		DisplayName: "Conductor Bridge",
		Description: "Conductor Bridge: streams your Claude Code agents to the Chrome side panel",
		Executable:  exe,
		Arguments:   serviceArgs,
		Option: service.KeyValue{
			"UserService":   true,
			"LaunchdConfig": units.Launchd,
			"SystemdScript": units.Systemd,
		},
	}
	if runtime.GOOS == "linux" {
		// A login item on Linux is a systemd user unit, whatever runs as
		// PID 1 here (kardianos would pick SysV or OpenRC in a container).
		for _, sys := range service.AvailableSystems() {
			if sys.String() == "linux-systemd" {
				return sys.New(noProgram{}, cfg)
			}
		}
	}
	return service.New(noProgram{}, cfg)
}

// serviceFile is where the login item's file goes.
func serviceFile() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	if runtime.GOOS == "darwin" {
		return filepath.Join(home, "Library", "LaunchAgents", serviceName()+".plist"), nil
	}
	return filepath.Join(home, ".config", "systemd", "user", serviceName()+".service"), nil
}

// installable returns the binary a login item should start: this one,
// unless it is a throwaway `go run` build or will not be there after a
// restart (checkLoginPath).
func installable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "", errors.New("this is a temporary `go run` build; build it first (go build -o conductor-bridge ./app) and run that")
	}
	if err := checkLoginPath(exe); err != nil {
		return "", err
	}
	return exe, nil
}

// loginItem is the tray's "Start at login".
type loginItem struct {
	log zerolog.Logger
}

func newLoginItem(c config, log zerolog.Logger) tray.LoginItem {
	if runtime.GOOS != "darwin" && runtime.GOOS != "linux" {
		return nil
	}
	return loginItem{log: log}
}

func (l loginItem) Installed() bool {
	f, err := serviceFile()
	if err != nil {
		return false
	}
	_, err = os.Stat(f)
	return err == nil
}

func (l loginItem) Install() error {
	exe, err := installable()
	if err != nil {
		return err
	}
	svc, err := newService(exe)
	if err != nil {
		return err
	}
	if err := svc.Install(); err != nil {
		return explainService("install", err)
	}
	if err := installSocketUnit(); err != nil {
		return explainService("install", err)
	}
	return nil
}

func (l loginItem) Uninstall() error {
	if runtime.GOOS == "darwin" {
		// kardianos would `launchctl unload` first, which stops the job:
		// the bridge asking would quit itself. Without the plist it simply
		// is not started at the next login.
		f, err := serviceFile()
		if err == nil {
			err = os.Remove(f)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return explainService("uninstall", err)
		}
		return nil
	}
	if err := uninstallSocketUnit(); err != nil {
		return explainService("uninstall", err)
	}
	svc, err := newService("")
	if err != nil {
		return err
	}
	if err := svc.Uninstall(); err != nil {
		// The file is what makes it start at login: without it, done.
		if f, ferr := serviceFile(); ferr == nil {
			if rerr := os.Remove(f); rerr == nil || errors.Is(rerr, os.ErrNotExist) {
				return nil
			}
		}
		return explainService("uninstall", err)
	}
	return nil
}

func explainService(what string, err error) error {
	f, _ := serviceFile()
	if runtime.GOOS == "linux" {
		return fmt.Errorf("%s the login item (%s): %w (does this session run systemd --user?)", what, f, err)
	}
	return fmt.Errorf("%s the login item (%s): %w", what, f, err)
}

// serviceCmd is `conductor-bridge service install|uninstall|start|stop|status`.
func serviceCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 {
		return errors.New("usage: conductor-bridge service install|uninstall|start|stop|status")
	}
	l := loginItem{}
	f, _ := serviceFile()
	switch args[0] {
	case "install":
		if l.Installed() {
			fmt.Fprintf(stdout, "already installed: %s\n", f)
			return nil
		}
		if err := l.Install(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "installed %s: Conductor Bridge starts when you log in\n", f)
		return nil
	case "uninstall":
		if !l.Installed() {
			fmt.Fprintln(stdout, "not installed")
			return nil
		}
		if err := l.Uninstall(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "removed %s\n", f)
		return nil
	case "start", "stop", "status":
		svc, err := newService("")
		if err != nil {
			return err
		}
		switch args[0] {
		case "start":
			err = svc.Start()
		case "stop":
			err = svc.Stop()
		case "status":
			st, serr := svc.Status()
			state := map[service.Status]string{service.StatusRunning: "running", service.StatusStopped: "stopped"}[st]
			if state == "" {
				state = "unknown"
			}
			fmt.Fprintf(stdout, "login item: installed %v (%s); %s\n", l.Installed(), f, state)
			if serr != nil && !errors.Is(serr, service.ErrNotInstalled) {
				fmt.Fprintf(stderr, "(%v)\n", serr)
			}
			return nil
		}
		if err != nil {
			return explainService(args[0], err)
		}
		fmt.Fprintln(stdout, map[string]string{"start": "started", "stop": "stopped"}[args[0]])
		return nil
	}
	return fmt.Errorf("unknown service command %q", args[0])
}
