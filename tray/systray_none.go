//go:build !linux && !(darwin && cgo)

package tray

import (
	"context"
	"errors"
	"runtime"
)

// errNoTray: on macOS the menu bar is drawn through Cocoa, which needs cgo;
// other platforms have no menu bar support.
var errNoTray = func() error {
	if runtime.GOOS == "darwin" {
		return errors.New("this build has no menu bar: on macOS it needs cgo (CGO_ENABLED=1)")
	}
	return errors.New("no menu bar on " + runtime.GOOS)
}()

// ErrNoTrayHost is never the reason here.
var ErrNoTrayHost = errors.New("no tray host")

// Available reports why there can be no menu bar.
func Available() error { return errNoTray }

// RunSystray cannot run in this build.
func RunSystray(ctx context.Context, ready func(Shell), onExit func()) error { return errNoTray }
