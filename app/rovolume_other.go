//go:build !linux && !darwin

package main

// readOnlyVolume cannot tell here; the path checks still apply.
func readOnlyVolume(string) (bool, error) { return false, nil }
