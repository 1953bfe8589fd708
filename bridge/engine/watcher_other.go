//go:build !linux

package engine

func newWatcher() (watcher, error) { return newNotifyWatcher() }

// dirEventsNameFiles: kqueue's folder events are not relied on to name a
// file renamed over another (fsnotify finds changes by listing the
// folder): a record held open is looked at before each read.
const dirEventsNameFiles = false
