package engine

import (
	"context"

	"github.com/fsnotify/fsnotify"
)

// watcher is what the engine watches paths with: fsnotify's, or on Linux
// its own reader of inotify (watcher_linux.go), which hands each event to
// the engine on the goroutine that read it.
type watcher interface {
	Add(path string) error
	Remove(path string) error
	Close() error
	// run hands each event, then each batch read at once, to the engine
	// until the watcher is closed or ctx ends; events come in order, on
	// one goroutine at a time.
	run(ctx context.Context, on watchHandler)
}

// watchHandler is what the engine does with what a watcher reads.
type watchHandler interface {
	event(fsnotify.Event)
	batchDone() // the events read at once are all handed over
	watchError(error)
}

// notifyWatcher is fsnotify's watcher: its events come on a channel from
// a goroutine of its own.
type notifyWatcher struct{ *fsnotify.Watcher }

func newNotifyWatcher() (watcher, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	return notifyWatcher{w}, nil
}

func (w notifyWatcher) run(ctx context.Context, on watchHandler) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			on.event(ev)
			on.batchDone()
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			on.watchError(err)
		}
	}
}
