package main

import "runtime"

// macOS draws menus on the main thread only: keep the main goroutine, which
// runs the menu bar, on it.
func init() { runtime.LockOSThread() }
