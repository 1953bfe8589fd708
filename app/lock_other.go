//go:build !unix

package main

import (
	"errors"
	"os"
)

// lockState is a no-op where flock does not exist; the bridge targets
// macOS and Linux.
func lockState(dir string) (*os.File, error) { return nil, nil }

// errRunning: another bridge holds the state dir (never, here).
var errRunning = errors.New("another Conductor Bridge is running")
