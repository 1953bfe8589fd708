//go:build !linux

package engine

import "time"

func newWakeTimer(d time.Duration) wakeTimer { return newGoTimer(d) }
