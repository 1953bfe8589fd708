//go:build !darwin || !cgo

package activation

// launchdFiles: launchd is macOS's, and checking in takes cgo (libSystem's
// launch_activate_socket). A darwin build without cgo (the cross-built
// test bundle) binds its own port.
func launchdFiles(string) ([]*fileDesc, error) { return nil, ErrNone }
