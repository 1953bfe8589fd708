package engine

import (
	"path/filepath"
	"time"
)

// What an idle sweep leaves alone. A path whose watch tells of every
// change to it needs no stat while it is quiet: with inotify a folder's
// watch tells of each new entry and of each write to a file in it, and a
// file watched on its own (kqueue) tells of its writes: where folders are
// not watched, a quiet followed file gets a watch of its own (up to
// maxQuietWatches), and only the folders are statted each sweep, for new
// files. So a sweep stats
// only what no watch covers, what changed lately, what it has not seen
// yet, and the paths of a workspace with a session at work (whose events
// the sweep backs up); every fullSweepEvery, and after the watcher reported an error (its queue
// overflowed: events were lost), one sweep stats every path. A thousand
// idle files then cost no stat a minute instead of a thousand.

// quietFor is how long a path must have been unchanged (by its
// modification time) before a watched one is left to its watch.
const quietFor = 2 * time.Minute

// fullSweepEvery is how often a sweep stats every path anyway: the
// safety net for a change no watch reported.
const fullSweepEvery = 10 * time.Minute

// full reports whether this sweep stats every path: the first, one after
// fullSweepEvery, one after a watcher error, and every sweep while some
// path is polled or nothing is watched at all.
func (s *sweeper) full(polled bool) bool {
	errs := s.e.watchErrs.Load()
	if polled || !s.e.watching() || s.lastFull.IsZero() || s.last.Sub(s.lastFull) >= fullSweepEvery || errs != s.errs {
		s.lastFull, s.errs = s.last, errs
		return true
	}
	return false
}

// watchOf is the path whose watch covers path: its folder where folders
// are watched, else the file itself.
func (s *sweeper) watchOf(path string, watchDirs bool) string {
	if watchDirs {
		return filepath.Dir(path)
	}
	return path
}

// skip reports whether the sweep may leave path unstatted: not a look at
// every path (a full sweep, a workspace at work), seen before, there and unchanged for quietFor when last seen,
// and covered by a watch.
func (s *sweeper) skip(path, watch string, look bool) bool {
	if look {
		return false
	}
	return s.quiet(path) && s.e.isWatched(watch)
}

// quiet reports whether path was there and unchanged for quietFor when
// the sweep last statted it.
func (s *sweeper) quiet(path string) bool {
	st, ok := s.stamps[path]
	return ok && st.size >= 0 && s.last.Sub(st.mod) >= quietFor
}

// maxQuietWatches bounds the watches watchQuiet adds: where folders are
// not watched (kqueue), each is a descriptor held open.
const maxQuietWatches = 1024

// watchQuiet watches a quiet followed file of its own where folders are
// not watched (kqueue tells of a write to a watched file), so that sweeps
// need not stat it. Unlike watch, a file it cannot watch (the budget is
// spent, descriptors ran out) is left to the sweep's stat as before: it
// is not polled, which would hold the sweep at its base rate.
func (e *Engine) watchQuiet(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.watcher == nil || e.watched[path] || e.polled[path] || len(e.quietWatches) >= maxQuietWatches ||
		(e.cfg.MaxWatches > 0 && len(e.watched) >= e.cfg.MaxWatches) {
		return
	}
	if e.watcher.Add(path) == nil {
		e.watched[path] = true
		e.quietWatches[path] = true
	}
}

// watching reports whether the engine has a file watcher at all.
func (e *Engine) watching() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.watcher != nil
}

// browseIdleEvery is how often a backed-off sweep runs the browse
// finder's sweep, which stats every workspace's .gstack folder: a browse
// server is started by an agent at work (the sweep at its base rate runs
// it every time), and a .gstack folder already there is watched.
const browseIdleEvery = 5 * time.Minute
