package engine

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/fsnotify/fsnotify"
)

// Codex writes each session to sessions/YYYY/MM/DD/rollout-…-<thread>.jsonl
// under its home. fsnotify is not recursive, so the engine watches the
// sessions folder and the newest year, month and day folders under it (a
// new session lands in today's), plus the folder of every rollout it
// follows (a resumed session goes on writing in the day it began). A folder
// made under a watched one is watched in turn, so midnight and a first
// Codex run are seen without a sweep.

// codexRoot is Codex's sessions folder, "" when no Codex home is set.
func (e *Engine) codexRoot() string {
	if e.cfg.CodexHome == "" {
		return ""
	}
	return filepath.Join(filepath.Clean(e.cfg.CodexHome), "sessions")
}

// watchCodex watches the sessions folder down to its newest day folder.
// It is cheap to repeat (each scan does): watched folders are skipped.
func (e *Engine) watchCodex() {
	root := e.codexRoot()
	if root == "" || !*e.cfg.WatchDirs {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.watcher == nil {
		return
	}
	if !e.watched[root] {
		if !isDir(root) {
			// Not made yet: the Codex home is watched for it (itself
			// made by Codex's first run, which the scan timer catches).
			if !e.watched[filepath.Dir(root)] && e.watchLocked(filepath.Dir(root)) {
				e.codexUp = filepath.Dir(root)
			}
			return
		}
		e.watchLocked(root)
	}
	if e.codexUp != "" && e.watched[root] {
		// Codex's home is busy (its databases, logs): once the sessions
		// folder is watched, its events are only noise.
		e.watcher.Remove(e.codexUp)
		delete(e.watched, e.codexUp)
		e.codexUp = ""
	}
	dir := root
	for range 3 { // year, month, day
		next := newestDir(dir)
		if next == "" {
			return
		}
		e.watchLocked(next)
		dir = next
	}
}

// codexDay is the newest day folder of Codex's sessions, "" if none.
func (e *Engine) codexDay() string {
	dir := e.codexRoot()
	for range 3 {
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

// watchCodexFile watches a followed rollout: its folder where folders are
// watched, else (kqueue) the file itself.
func (e *Engine) watchCodexFile(path string) {
	if *e.cfg.WatchDirs {
		e.watch(filepath.Dir(path))
	} else {
		e.watch(path)
	}
}

// routeCodex handles a file event under Codex's home and reports whether
// it was one: a write to a followed rollout pokes its workspace; a new
// folder is watched; anything else there (a new rollout, a write to one not
// followed, the sessions folder appearing) asks for a scan.
func (e *Engine) routeCodex(ev fsnotify.Event) bool {
	root := e.codexRoot()
	if root == "" || !within(ev.Name, filepath.Dir(root)) {
		return false
	}
	if ev.Has(fsnotify.Create) && isDir(ev.Name) && within(ev.Name, root) {
		e.watch(ev.Name) // a new year, month or day
		e.askRescan()
		return true
	}
	if filepath.Ext(ev.Name) != ".jsonl" {
		if filepath.Clean(ev.Name) == root {
			e.watchCodex()
		}
		return within(ev.Name, root)
	}
	e.mu.RLock()
	poked := false
	for _, w := range e.workspaces {
		if slices.Contains(w.snap.Load().paths, ev.Name) {
			w.poke(!ev.Has(fsnotify.Write))
			poked = true
		}
	}
	e.mu.RUnlock()
	if !poked && e.askForRecord(ev.Name, ev.Has(fsnotify.Create)) {
		e.askRescan() // a session starting, or an old one resumed
	}
	return true
}
