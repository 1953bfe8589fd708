package engine

import (
	"path/filepath"
	"slices"

	"github.com/fsnotify/fsnotify"

	"conductorbridge/bridge/browse"
)

// Most file events are an agent appending a line to a record a workspace
// follows. route works out where an event goes from its name alone
// (cleaning it, taking its folder, matching it against the browse, dated
// and Conductor paths), some 6 µs a line in the live bench. The
// engine therefore keeps the paths its workspaces follow, each with what
// route would make of a plain write to it, worked out once when a
// workspace first lists it, and routeFollowed takes that short cut.
// Everything else about such a write is looked up as route does, under
// the same lock, so the two agree event for event.

// followedPath is one path some workspace's snapshot lists.
type followedPath struct {
	dir  string       // filepath.Dir of the path: byProject's key, and rootNoise's
	kind writeRoute   // where route sends a plain write to it
	by   []*workspace // the followed workspaces whose snapshot lists it
}

// writeRoute is where route sends a plain write to a followed path,
// given the engine's fixed roots.
type writeRoute int

const (
	// writeOther: anywhere else (a browse folder's file, a Conductor
	// database, a file of the projects root itself): route decides.
	writeOther writeRoute = iota
	// writeProject: the workspaces of its folder (byProject).
	writeProject
	// writeDated: a dated agent's record, to the workspaces listing it
	// (routeDated).
	writeDated
)

// writeRouteOf is where route sends a plain write to path: the checks
// route makes of a write's name, in its order, less those that depend on
// the engine's state (rootNoise's folders, byProject), which
// routeFollowed makes for each event.
func (e *Engine) writeRouteOf(path string) writeRoute {
	if e.cfg.Browse != nil && filepath.Base(filepath.Dir(filepath.Clean(path))) == browse.StateDir {
		return writeOther // routeBrowse's
	}
	if root := e.datedRoot; root != "" && within(path, filepath.Dir(root)) {
		if filepath.Ext(path) == ".jsonl" {
			return writeDated
		}
		return writeOther
	}
	dir := filepath.Dir(path)
	if e.projects != "" && filepath.Clean(dir) == e.projects {
		return writeOther
	}
	if e.rescanOn[dir] || e.rescanOn[filepath.Clean(path)] {
		return writeOther
	}
	return writeProject
}

// routeFollowed routes a plain write to a followed path as route would,
// and reports whether it did; anything else is left to rootNoise and
// route.
func (e *Engine) routeFollowed(ev fsnotify.Event, here *[]*workspace) bool {
	if ev.Op != fsnotify.Write {
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	f := e.followedPaths[ev.Name]
	if f == nil || f.kind == writeOther {
		return false
	}
	if len(e.ancestors) > 0 && e.ancestors[f.dir] > 0 {
		return false // a folder watched for a missing root: rootNoise decides
	}
	if f.kind == writeDated {
		for _, w := range f.by {
			w.pokeWrite(false, here)
		}
		return true
	}
	ids, ok := e.byProject[f.dir]
	if !ok {
		return false // no workspace has its folder (a hinted one's record elsewhere)
	}
	for _, id := range ids {
		if w := e.workspaces[id]; w != nil {
			// A workspace of the folder not following the file may
			// have a session starting in it: it lists its sessions
			// again, as route has it.
			w.pokeWrite(!slices.Contains(f.by, w), here)
		}
	}
	return true
}

// storeSnapshot publishes s as w's snapshot. When the paths it lists
// differ from the last one's, the followed paths change with it under the
// engine's lock, so that routeFollowed and route, which read both under
// that lock, agree. It returns the snapshot s replaces.
func (w *workspace) storeSnapshot(s *snapshot) *snapshot {
	old := w.snap.Load() // only w's goroutine stores
	if old != nil && samePaths(old.paths, s.paths) {
		w.snap.Store(s)
		return old
	}
	e := w.eng
	e.mu.Lock()
	defer e.mu.Unlock()
	w.snap.Store(s)
	var before []string
	if old != nil {
		before = old.paths
	}
	after := s.paths
	if e.workspaces[w.id] != w {
		after = nil // no longer followed (unfollowLocked let its paths go)
	}
	e.refollowLocked(w, before, after)
	return old
}

// unfollowLocked drops a workspace that is no longer followed from the
// followed paths.
func (e *Engine) unfollowLocked(w *workspace) {
	e.refollowLocked(w, w.snap.Load().paths, nil)
}

// refollowLocked moves w from the followed paths in before to those in
// after.
func (e *Engine) refollowLocked(w *workspace, before, after []string) {
	for _, p := range before {
		if slices.Contains(after, p) {
			continue
		}
		f := e.followedPaths[p]
		if f == nil {
			continue
		}
		f.by = slices.DeleteFunc(f.by, func(x *workspace) bool { return x == w })
		if len(f.by) == 0 {
			delete(e.followedPaths, p)
		}
	}
	for _, p := range after {
		f := e.followedPaths[p]
		if f == nil {
			if e.followedPaths == nil {
				e.followedPaths = make(map[string]*followedPath)
			}
			f = &followedPath{dir: filepath.Dir(p), kind: e.writeRouteOf(p)}
			e.followedPaths[p] = f
		}
		if !slices.Contains(f.by, w) {
			f.by = append(f.by, w)
		}
	}
}

// samePaths reports whether a and b list the same paths, in any order
// (a snapshot lists them in its tails' map order).
func samePaths(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return sameSet(a[i:], b[i:])
		}
	}
	return true
}

// sameSet is samePaths for lists in different orders.
func sameSet(a, b []string) bool {
	if len(a) <= 8 {
		for _, p := range a {
			if !slices.Contains(b, p) {
				return false
			}
		}
		for _, p := range b {
			if !slices.Contains(a, p) {
				return false
			}
		}
		return true
	}
	n := make(map[string]int, len(a))
	for _, p := range a {
		n[p]++
	}
	for _, p := range b {
		if n[p] == 0 {
			return false
		}
		n[p]--
	}
	return true
}
