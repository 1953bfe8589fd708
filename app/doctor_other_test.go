//go:build !linux

package main

import "testing"

// doctorDesktop: macOS always has a menu bar and notifications.
func doctorDesktop(t *testing.T) ([]string, any) { return nil, nil }
