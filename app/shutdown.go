package main

import (
	"context"
	"time"
)

// shutdown is the bridge's one way out. The menu's Quit, SIGTERM and
// SIGINT end serve's context; AppKit's termination (logout, restart, the
// Homebrew cask's quit) calls systray's onExit from
// applicationWillTerminate: and exits the process as soon as it returns,
// so nothing after systray.Run would run. Every way ends in the same
// steps, run once, when the context ends: serving stops, the engine stops,
// the hub closes its journals and subscribers, the hook record is
// flushed, bridge.json is removed. (The message queue writes through: each
// change is on disk, fsynced, before it is acknowledged.)
type shutdown struct {
	quit context.CancelFunc
	done chan struct{}
}

// appKitGrace bounds how long onExit holds AppKit's termination: logout
// waits for the app, and the steps take well under it (the HTTP server is
// given 3 s).
const appKitGrace = 5 * time.Second

// startShutdown runs steps once ctx ends, whatever ended it.
func startShutdown(ctx context.Context, quit context.CancelFunc, steps func()) *shutdown {
	s := &shutdown{quit: quit, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		<-ctx.Done()
		steps()
	}()
	return s
}

// wait returns once the steps have run.
func (s *shutdown) wait() { <-s.done }

// onExit is systray's exit callback. On macOS AppKit calls it on the main
// thread while terminating and exits when it returns: it ends the context
// and waits for the steps, for appKitGrace at most. On Linux systray calls
// it once its loop has ended (after Quit), when the steps are under way.
func (s *shutdown) onExit() {
	s.quit()
	select {
	case <-s.done:
	case <-time.After(appKitGrace):
	}
}
