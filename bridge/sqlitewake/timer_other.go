//go:build !linux

package sqlitewake

func newRetryTimer() retryTimer { return newGoTimer() }
