package engine

import (
	"path/filepath"

	"github.com/fsnotify/fsnotify"

	"conductorbridge/bridge/browse"
	"conductorbridge/bridge/stream"
)

// Browse follows each workspace's gstack browse server (browse.Finder):
// the engine tells it which workspaces it follows and where, hands it the
// file events of their .gstack folders, and runs its sweep with its own,
// so finding a browse server costs no timer of its own.
type Browse interface {
	Follow(id, dir string, topic browse.Topic)
	Forget(id string)
	// Changed hears of a file event in a .gstack folder and reports
	// whether it was a followed workspace's.
	Changed(path string) bool
	// Sweep stats what file events may have missed; with folders, it
	// returns the .gstack folders that appeared, to watch.
	Sweep(folders bool) []string
	Live(id string) bool
}

// BrowseChanged tells the engine's readers (the tray, the API) that a
// workspace's browser came or went: browse.Finder's OnChange.
func (e *Engine) BrowseChanged() { e.changed() }

// browseFollowLocked starts following a workspace's browser, and where
// folders are watched, its .gstack folder if there is one.
func (e *Engine) browseFollowLocked(id, dir string, t *stream.Topic) {
	if e.cfg.Browse == nil || dir == "" {
		return
	}
	if d := filepath.Join(dir, browse.StateDir); *e.cfg.WatchDirs && isDir(d) {
		e.watchLocked(d)
	}
	e.cfg.Browse.Follow(id, dir, t)
}

// browseForgetLocked stops following a workspace's browser, and watching
// its .gstack folder.
func (e *Engine) browseForgetLocked(id, dir string) {
	if e.cfg.Browse == nil {
		return
	}
	e.cfg.Browse.Forget(id)
	if d := filepath.Join(dir, browse.StateDir); e.watched[d] && e.watcher != nil {
		e.watcher.Remove(d)
		delete(e.watched, d)
	}
}

// routeBrowse hands an event in a .gstack folder to the browse finder. A
// watched .gstack folder that went is no longer watched: the sweep
// watches it again if it comes back.
func (e *Engine) routeBrowse(ev fsnotify.Event) bool {
	if e.cfg.Browse == nil {
		return false
	}
	name := filepath.Clean(ev.Name)
	if filepath.Base(name) == browse.StateDir && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		e.mu.Lock()
		delete(e.watched, name)
		e.mu.Unlock()
	} else if filepath.Base(filepath.Dir(name)) != browse.StateDir {
		return false
	}
	return e.cfg.Browse.Changed(name)
}

// sweepBrowse runs the browse finder's sweep, watching the .gstack
// folders that appeared where folders are watched.
func (e *Engine) sweepBrowse() {
	if e.cfg.Browse == nil {
		return
	}
	for _, dir := range e.cfg.Browse.Sweep(*e.cfg.WatchDirs) {
		e.watch(dir)
	}
}

func (e *Engine) browseLive(id string) bool {
	return e.cfg.Browse != nil && e.cfg.Browse.Live(id)
}
