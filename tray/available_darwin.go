//go:build darwin && cgo

package tray

import "errors"

// ErrNoTrayHost is never the reason on macOS.
var ErrNoTrayHost = errors.New("no tray host")

// Available reports why there can be no menu bar: on macOS there always is.
func Available() error { return nil }
