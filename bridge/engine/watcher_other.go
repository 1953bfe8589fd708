//go:build !linux

package engine

func newWatcher() (watcher, error) { return newNotifyWatcher() }
