//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"conductorbridge/bridge/regular"
)

// errRunning: another bridge holds the state dir.
var errRunning = errors.New("another Conductor Bridge is running")

// lockState takes an exclusive lock on the state dir, so two bridges never
// share one queue and one set of journals (the login item and a second
// `serve` on another port would otherwise lose or repeat messages). The
// lock goes with the process, however it ends.
func lockState(dir string) (*os.File, error) {
	f, _, err := regular.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock state dir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w on %s (stop it first, or pass --state-dir)", errRunning, dir)
		}
		return nil, fmt.Errorf("lock state dir: %w", err)
	}
	return f, nil
}
