//go:build !unix

package main

import "os"

// lockState is a no-op where flock does not exist; the bridge targets
// macOS and Linux.
func lockState(dir string) (*os.File, error) { return nil, nil }
