package engine

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/fsnotify/fsnotify"
)

// An agent.Dated agent writes each session's record under one root in
// dated folders (Codex: sessions/YYYY/MM/DD/rollout-…-<thread>.jsonl
// under its home). fsnotify is not recursive, so the engine watches the
// root and the newest folder of each level under it (a new session lands
// in today's), plus the folder of every record it follows (a resumed
// session goes on writing in the day it began). A folder made under a
// watched one is watched in turn, so midnight and an agent's first run
// are seen without a sweep.

// watchDated watches the dated root down to its newest day folder (or,
// while the root is missing, the nearest folder above it: roots.go).
// It is cheap to repeat (each scan does): watched folders are skipped.
func (e *Engine) watchDated() {
	r := e.datedRootWatch
	if r == nil || r.path == "" {
		return
	}
	e.watchRoot(r)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.watched[r.path] {
		e.watchDatedDownLocked()
	}
}

// datedFound is the dated root's found: when the root was missing until
// now, the folders made with it (the agent's first run makes the day's in
// one go) are watched before the scan is asked for, so that the record
// made in them is a file event even when the scan runs before the record
// says where it runs.
func (e *Engine) datedFound(fresh bool) {
	if fresh {
		e.watchDatedDownLocked()
		e.askRescan()
	}
}

// watchDatedDownLocked watches the newest folder of each level under the
// watched dated root.
func (e *Engine) watchDatedDownLocked() {
	dir := e.datedRoot
	for range e.datedDepth { // year, month, day
		next := newestDir(dir)
		if next == "" {
			return
		}
		e.watchLocked(next)
		dir = next
	}
}

// datedDay is the newest day folder under the dated root, "" if none.
func (e *Engine) datedDay() string {
	dir := e.datedRoot
	for range e.datedDepth {
		if dir == "" {
			return ""
		}
		dir = newestDir(dir)
	}
	return dir
}

// newestDir is the last sub-folder of dir by name ("2026" > "2025"),
// "" when it has none.
func newestDir(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var names []string
	for _, d := range ents {
		if d.IsDir() {
			names = append(names, d.Name())
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return filepath.Join(dir, names[len(names)-1])
}

// watchDatedFile watches a followed dated record: its folder where
// folders are watched, else (kqueue) the file itself.
func (e *Engine) watchDatedFile(path string) {
	if *e.cfg.WatchDirs {
		e.watch(filepath.Dir(path))
	} else {
		e.watch(path)
	}
}

// routeDated handles a file event under the dated root's parent and
// reports whether it was one: a write to a followed record pokes its
// workspace; a new folder is watched; anything else there (a new record, a
// write to one not followed, the root appearing) asks for a scan.
func (e *Engine) routeDated(ev fsnotify.Event, here *[]*workspace) bool {
	root := e.datedRoot
	if root == "" || !within(ev.Name, filepath.Dir(root)) {
		return false
	}
	if ev.Has(fsnotify.Create) && isDir(ev.Name) && within(ev.Name, root) {
		// A new year, month or day, the ones below it perhaps made with
		// it before its watch took: watched before the scan is asked for.
		e.watch(ev.Name)
		e.watchDated()
		e.askRescan()
		return true
	}
	if filepath.Ext(ev.Name) != ".jsonl" {
		if filepath.Clean(ev.Name) == root {
			e.watchDated()
		}
		return within(ev.Name, root)
	}
	e.mu.RLock()
	poked := false
	for _, w := range e.workspaces {
		if slices.Contains(w.snap.Load().paths, ev.Name) {
			w.pokeWrite(!ev.Has(fsnotify.Write), here)
			poked = true
		}
	}
	e.mu.RUnlock()
	if !poked && e.askForRecord(ev.Name, ev.Has(fsnotify.Create)) {
		e.askRescan() // a session starting, or an old one resumed
	}
	return true
}
