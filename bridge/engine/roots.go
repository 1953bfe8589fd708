package engine

import (
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// Agents' roots that do not exist yet. Claude Code's projects folder and
// Codex's sessions folder are made by the agent's first run, often after
// the bridge started, and usually in one go with the first session's own
// folder and record (mkdir -p, then the file). Where folders are watched
// the nearest folder above a missing root that does exist is watched for
// it, and each folder made on the way down moves the watch closer; once
// the root is watched, what was made under it before the watch took is
// watched too and a scan is asked for, so the first session is a file
// event, not a wait for the scan timer. Where folders are not watched
// (kqueue opens every file of a watched folder, and a home has many), the
// sweep tries the root again each time it runs.

// rootWatch is one agent root and where it is watched from.
type rootWatch struct {
	path string
	// up is the folder above path watched for it while path is missing
	// ("" none).
	up string
	// pending is set while path could not be watched: once it is, what
	// was made under it meanwhile is looked at (found's fresh).
	pending bool
	// found runs under the engine's lock once path is watched; fresh
	// tells that it was missing before, so folders in it may have been
	// made unseen.
	found func(fresh bool)
}

// watchRoot watches r's root, or else the nearest folder above it that
// exists. The agent makes the whole chain at once, so a folder below the
// one just watched may have appeared before the watch took, with its
// event lost: each new watch looks one level down and moves on if it can.
func (e *Engine) watchRoot(r *rootWatch) {
	if r == nil || r.path == "" {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for range 64 {
		up, done := e.watchRootLocked(r)
		if done || !isDir(childToward(r.path, up)) {
			return
		}
	}
}

// watchRootLocked makes one attempt: it watches the root, or else the
// nearest folder above it (returned), and reports done when there is
// nothing more to try.
func (e *Engine) watchRootLocked(r *rootWatch) (up string, done bool) {
	if e.watcher == nil {
		return "", true
	}
	if e.watched[r.path] {
		e.releaseUpLocked(r)
		return "", true
	}
	if e.watchLocked(r.path) {
		e.releaseUpLocked(r)
		fresh := r.pending
		r.pending = false
		if r.found != nil {
			r.found(fresh)
		}
		return "", true
	}
	r.pending = true
	if !*e.cfg.WatchDirs {
		return "", true // kqueue would open every file in an ancestor: the sweep retries
	}
	for up := filepath.Dir(r.path); up != filepath.Dir(up); up = filepath.Dir(up) {
		if up == r.up && e.watched[up] {
			return up, false // still the nearest
		}
		if e.claimLocked(up) {
			e.releaseUpLocked(r)
			r.up = up
			return up, false
		}
	}
	return "", true
}

// claimLocked watches up for a missing root and reports whether it is
// watched. A folder watched only for missing roots is counted, so that
// two roots sharing one (the home, on a machine that never ran either
// agent) do not take it from each other.
func (e *Engine) claimLocked(up string) bool {
	if n := e.ancestors[up]; n > 0 {
		e.ancestors[up] = n + 1
		return true
	}
	if e.watched[up] {
		return true // watched for its own sake: never dropped for a root
	}
	if !e.watchLocked(up) {
		return false
	}
	e.ancestors[up] = 1
	return true
}

// releaseUpLocked gives up the folder watched for r's root, dropping its
// watch when no other root needs it.
func (e *Engine) releaseUpLocked(r *rootWatch) {
	up := r.up
	if up == "" {
		return
	}
	r.up = ""
	switch n := e.ancestors[up]; {
	case n > 1:
		e.ancestors[up] = n - 1
	case n == 1:
		delete(e.ancestors, up)
		if e.watched[up] && !e.neededLocked(up) {
			e.watcher.Remove(up)
			delete(e.watched, up)
		}
	}
}

// neededLocked reports whether a folder is watched for something besides
// missing roots: a file or folder whose change asks for a scan.
func (e *Engine) neededLocked(dir string) bool {
	for p := range e.rescanOn {
		if p == dir || filepath.Dir(p) == dir {
			return true
		}
	}
	return false
}

// roots are the agents' roots watched this way.
func (e *Engine) roots() []*rootWatch {
	var out []*rootWatch
	for _, r := range []*rootWatch{e.projectsRoot, e.datedRootWatch} {
		if r != nil && r.path != "" {
			out = append(out, r)
		}
	}
	return out
}

// rootsPending reports the roots that are not watched yet.
func (e *Engine) rootsPending() []*rootWatch {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.watcher == nil {
		return nil
	}
	var out []*rootWatch
	for _, r := range e.roots() {
		if !e.watched[r.path] {
			out = append(out, r)
		}
	}
	return out
}

// routeRoots handles a folder made on the way to a root not watched yet,
// or the root itself, and reports whether the event was one.
func (e *Engine) routeRoots(ev fsnotify.Event) bool {
	if !ev.Has(fsnotify.Create) {
		return false
	}
	hit := false
	for _, r := range e.rootsPending() {
		if within(r.path, ev.Name) {
			e.watchRoot(r)
			hit = true
		}
	}
	return hit
}

// rootNoise reports whether an event is in a folder watched only for
// missing roots and is not on the way to one: the home's own files
// (a shell's history, an editor's swap file) are no business of the
// bridge's, and must not wake its sweep.
func (e *Engine) rootNoise(ev fsnotify.Event) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if len(e.ancestors) == 0 || e.ancestors[filepath.Dir(ev.Name)] == 0 {
		return false
	}
	for _, r := range e.roots() {
		if within(r.path, ev.Name) {
			return false
		}
	}
	return !e.rescanOn[filepath.Clean(ev.Name)]
}

// rootGone watches again for a root that was removed, or a folder above
// it: the nearest folder above that is left is watched for it to come
// back.
func (e *Engine) rootGone(path string) {
	for _, r := range e.rootsPending() {
		if within(r.path, path) {
			e.watchRoot(r)
		}
	}
}

// forgetRootLocked forgets a watched folder that was removed, if it was
// watched for a missing root: the root's next try looks again.
func (e *Engine) forgetRootLocked(path string) {
	if e.ancestors[path] == 0 {
		return
	}
	delete(e.ancestors, path)
	for _, r := range e.roots() {
		if r.up == path {
			r.up = ""
		}
	}
}

// projectsFound is the projects root's found: the workspaces already
// followed list their sessions again and their folders are watched, and
// every project folder in it is watched before the scan is asked for, so
// that the transcript that follows in one is a file event even when the
// scan runs before the transcript says where it runs. That holds for the
// folders of a root that was there from the start too: a folder no
// workspace has (emptied by Claude Code's clean-up, or made with no
// transcript yet) was otherwise watched by nobody, and a new session in it
// waited for the scan timer, backed off to minutes on an idle bridge.
func (e *Engine) projectsFound(bool) {
	for dir, ids := range e.byProject {
		if *e.cfg.WatchDirs {
			e.watchLocked(dir)
		}
		for _, id := range ids {
			if w := e.workspaces[id]; w != nil {
				w.poke(true)
			}
		}
	}
	if *e.cfg.WatchDirs {
		e.watchChildrenLocked(e.projects)
	}
	e.askRescan()
}

// watchChildrenLocked watches the folders in dir.
func (e *Engine) watchChildrenLocked(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, d := range ents {
		if d.IsDir() {
			e.watchLocked(filepath.Join(dir, d.Name()))
		}
	}
}
