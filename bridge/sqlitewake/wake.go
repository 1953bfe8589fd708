// Package sqlitewake runs a reader of another program's SQLite database
// (in WAL mode) each time that program may have committed: when the
// database or its -wal file is written, on a slow poll as a net for a
// lost file event, and when asked. The reader itself asks SQLite's PRAGMA
// data_version whether anything was committed, and says so.
package sqlitewake

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Options configure Run.
type Options struct {
	// Poll is how often Read runs with no file event (default 2 s).
	Poll time.Duration
	// Wake makes Read run now (a newly followed session), when set.
	Wake <-chan struct{}
	// Logf logs a failing file watch (default: nothing).
	Logf func(format string, args ...any)
}

// Run calls read until ctx ends: once at the start, then at each write
// to the database at path or its WAL, each poll and each wake. read
// reports whether it found a new commit; after a file event it runs again
// until it has seen the event's commit (settling), a little later each
// time.
func Run(ctx context.Context, path string, opt Options, read func(context.Context) bool) error {
	if opt.Poll <= 0 {
		opt.Poll = 2 * time.Second
	}
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		opt.Logf("%s: no file events, polling every %v: %v", path, opt.Poll, err)
		w = nil
	} else {
		defer w.Close()
	}
	dir, base := filepath.Dir(path), filepath.Base(path)
	watching := false
	watch := func() {
		if w != nil && !watching {
			watching = w.Add(dir) == nil // the folder: the WAL comes and goes
		}
	}
	watch()
	tick := time.NewTicker(opt.Poll)
	defer tick.Stop()
	retry := newRetryTimer()
	defer retry.Close()
	var settle settling
	again := func(found bool) {
		if wait, ok := settle.read(found, time.Now()); ok {
			retry.Reset(wait)
		}
	}
	ours := func(ev fsnotify.Event) bool {
		name := filepath.Base(ev.Name)
		return name == base || name == base+"-wal"
	}
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		events, errs = w.Events, w.Errors
	}
	read(ctx)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-events:
			if !ours(ev) {
				continue
			}
			drain(events) // one read for every event queued
			settle.event(time.Now())
			again(read(ctx))
		case err := <-errs:
			opt.Logf("%s: file events: %v", path, err)
		case <-retry.C():
			if settle.waiting() {
				again(read(ctx))
			}
		case <-opt.Wake:
			again(read(ctx))
		case <-tick.C:
			watch()
			again(read(ctx))
		}
	}
}

// drain takes the events already queued.
func drain(events <-chan fsnotify.Event) {
	for {
		select {
		case <-events:
		default:
			return
		}
	}
}
