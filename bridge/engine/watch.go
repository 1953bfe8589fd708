package engine

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"conductorbridge/bridge/event"
)

// route pokes the workspaces a file event concerns. A write to a record a
// workspace follows, with here set, is left to the caller to read: the
// workspace is claimed and added to here (workHere). The watch loop tries
// routeFollowed first, route's short cut for a plain write to a followed
// record (followed.go): a change to what route does with a write must be
// made in writeRouteOf too.
func (e *Engine) route(ev fsnotify.Event, here *[]*workspace) {
	if e.routeBrowse(ev) {
		return
	}
	if ev.Op != fsnotify.Write {
		e.folders.Add(1)
	}
	if ev.Has(fsnotify.Remove) {
		e.forgetWatch(ev.Name)
		e.rootGone(ev.Name)
	}
	if e.routeRoots(ev) { // a folder on the way to an agent's root was made
		return
	}
	if e.routeDated(ev, here) {
		return
	}
	dir := filepath.Dir(ev.Name)
	if e.projects != "" && filepath.Clean(dir) == e.projects {
		if ev.Has(fsnotify.Create) {
			// Watched before the scan is asked for: the transcript made
			// in it next must be an event, not wait for the scan timer.
			e.projectDirAppeared(ev.Name)
		}
		e.askRescan() // a new project folder may be a new workspace
		return
	}
	if e.rescanOn[dir] {
		e.askRescan() // Conductor's workspaces folder changed
		return
	}
	if e.rescanOn[filepath.Clean(ev.Name)] {
		if !noCommit(ev) {
			e.askRescan() // Conductor's database changed
		}
		return
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	if ids, ok := e.byProject[dir]; ok {
		for _, id := range ids {
			w := e.workspaces[id]
			if w == nil {
				continue
			}
			// A write to a followed file needs only a read; anything else
			// (a new file, a removal) may be a session starting or ending.
			live := ev.Has(fsnotify.Write) && slices.Contains(w.snap.Load().paths, ev.Name)
			w.pokeWrite(!live, here)
		}
		return
	}
	if e.projectRecord(ev.Name) {
		// A transcript in a folder no workspace has yet: a session
		// starting in a new folder.
		if e.askForRecord(ev.Name, ev.Has(fsnotify.Create)) {
			e.askRescan()
		}
		return
	}
	// A subagent transcript: <project>/<session>/subagents/agent-*.jsonl.
	for d := dir; e.projects != "" && len(d) > len(e.projects); d = filepath.Dir(d) {
		for _, id := range e.byProject[d] {
			if w := e.workspaces[id]; w != nil {
				w.poke(false)
			}
		}
	}
}

// noCommit reports whether an event on a watched database file cannot
// be a commit: a change of mode only, or a file made empty. The bridge's
// own read-only connection makes both when it opens a database whose -wal
// is not there (Conductor closed): SQLite creates the -wal empty and sets
// its mode. A commit writes the -wal (or the database), and that write is
// its own event.
func noCommit(ev fsnotify.Event) bool {
	if ev.Op == fsnotify.Chmod {
		return true
	}
	if ev.Op&^(fsnotify.Create|fsnotify.Chmod) != 0 {
		return false
	}
	fi, err := os.Stat(ev.Name)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == 0
}

// projectDirAppeared watches a new transcript folder. Its workspace may be
// followed already (a hook names a session before Claude Code makes its
// folder, and the scan that follows finds nothing new), or not yet (a
// session in a folder the bridge does not know: the scan its creation asks
// for may run before the transcript says where it runs); either way its
// transcript must be a file event, not wait for a sweep or the scan timer.
// The workspaces that have it list it again, which reads whatever was
// written before the watch took.
func (e *Engine) projectDirAppeared(dir string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if *e.cfg.WatchDirs && isDir(dir) {
		e.watchLocked(dir) // a workspace's, or one a scan will find once its transcript says where it runs
	}
	ids := e.byProject[dir]
	for _, id := range ids {
		if w := e.workspaces[id]; w != nil {
			w.poke(true)
		}
	}
}

// childToward is the folder right below up on the way to target.
func childToward(target, up string) string {
	rel, err := filepath.Rel(up, target)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	first, _, _ := strings.Cut(rel, string(filepath.Separator))
	return filepath.Join(up, first)
}

// within reports whether p is target or a folder above it.
func within(target, p string) bool {
	target, p = filepath.Clean(target), filepath.Clean(p)
	return target == p || strings.HasPrefix(target, p+string(filepath.Separator))
}

// indexLocked and unindexLocked keep byProject in step with the workspaces.
func (e *Engine) indexLocked(id, projectDir string) {
	if projectDir == "" {
		return
	}
	e.byProject[projectDir] = append(e.byProject[projectDir], id)
	if *e.cfg.WatchDirs {
		e.watchLocked(projectDir)
	}
}

func (e *Engine) unindexLocked(id, projectDir string) {
	ids := slices.DeleteFunc(e.byProject[projectDir], func(x string) bool { return x == id })
	if len(ids) > 0 {
		e.byProject[projectDir] = ids
		return
	}
	delete(e.byProject, projectDir)
	e.unwatchLocked(projectDir)
}

// watchSubagents watches a session's subagent folder where folders are
// watched; elsewhere the sweep and the main file's own events bring the
// workspace round often enough.
func (e *Engine) watchSubagents(dir string) {
	if *e.cfg.WatchDirs {
		e.watch(dir)
	}
}

// forgetWatch forgets the watch of a path that was removed: the system
// dropped it with the folder, and one made again under the name needs a
// watch of its own.
func (e *Engine) forgetWatch(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.quietWatches, path)
	e.forgetRootLocked(path)
	if e.watched[path] {
		delete(e.watched, path)
		if e.watcher != nil {
			e.watcher.Remove(path) // already gone in fsnotify; harmless
		}
	}
}

// isWatched reports whether path has a watch of its own.
func (e *Engine) isWatched(path string) bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.watched[path]
}

func (e *Engine) watch(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.watchLocked(path)
}

// watchLocked watches path and reports whether it is watched.
func (e *Engine) watchLocked(path string) bool {
	if e.watcher == nil || path == "" {
		return false
	}
	if e.watched[path] {
		return true
	}
	if e.polled[path] {
		return false // the watches ran out: the sweep polls it
	}
	if e.cfg.MaxWatches > 0 && len(e.watched) >= e.cfg.MaxWatches {
		e.pollLocked(path, errWatchCap)
		return false
	}
	if err := e.watcher.Add(path); err != nil {
		if watchesExhausted(err) {
			e.pollLocked(path, err)
		}
		return false // not there yet: the sweep tries again when it appears
	}
	e.watched[path] = true
	return true
}

// errWatchCap is what a path past Config.MaxWatches gets.
var errWatchCap = errors.New("watch cap reached")

// watchesExhausted reports whether a failed watch failed for want of
// watches (inotify's ENOSPC) or descriptors (kqueue opens each watched
// path, EMFILE/ENFILE) rather than because the path is missing.
func watchesExhausted(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// pollLocked falls back to polling path: the sweep then stays at its base
// rate, so its changes still arrive within a sweep. One log line tells of
// the first such path, not of every one.
func (e *Engine) pollLocked(path string, err error) {
	if len(e.polled) == 0 {
		e.log.Warn().Err(err).Str("path", path).Int("watched", len(e.watched)).
			Msg("file watches exhausted; polling the paths that could not be watched")
	}
	e.polled[path] = true
}

// polling reports whether any path is polled instead of watched.
func (e *Engine) polling() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.polled) > 0
}

// unwatchLocked stops watching a transcript folder and the files and
// subagent folders under it (no workspace uses it any more).
func (e *Engine) unwatchLocked(projectDir string) {
	if e.watcher == nil || projectDir == "" {
		return
	}
	for p := range e.watched {
		if p == projectDir || strings.HasPrefix(p, projectDir+string(filepath.Separator)) {
			e.watcher.Remove(p)
			delete(e.watched, p)
			delete(e.quietWatches, p)
		}
	}
	for p := range e.polled {
		if p == projectDir || strings.HasPrefix(p, projectDir+string(filepath.Separator)) {
			delete(e.polled, p)
		}
	}
}

// sweeper stats every workspace's folder and followed files and pokes the
// workspaces whose files changed: the safety net for missed or unsupported
// fsnotify events, and how new session files are noticed where folders
// are not watched. While nothing changes and no agent works it backs off,
// doubling its interval up to maxSweep, so an idle bridge barely wakes.
type sweeper struct {
	e      *Engine
	base   time.Duration
	every  time.Duration
	last   time.Time        // when the last sweep ran
	stamps map[string]stamp // path → what the last sweep saw
	// lastFull is when the sweep last looked at every path, watched and
	// quiet ones too, and errs the watcher errors it had heard of then
	// (see full).
	lastFull time.Time
	errs     uint64
	// lastBrowse is when the browse finder's sweep last ran (see
	// browseIdleEvery).
	lastBrowse time.Time
	// stat is os.Stat unless a test counts the sweep's system calls.
	stat func(string) (os.FileInfo, error)
	// restStart: the cold start caught up with every session at rest and
	// no file event came since, so where folders are watched the next
	// back-off goes straight to maxSweep (restingStart).
	restStart bool
}

type stamp struct {
	mod  time.Time
	size int64
}

// restingStart: where folders are watched, a start whose cold start
// caught up with every session at rest backs the sweep off to maxSweep
// after its first look (a full one, a second in), as the scan timer skips
// its first steps (idleStart): the idle sweeps at 3, 8, 18 and 38 s of
// the doubling found nothing the watches had not told of, and each woke
// the runtime's threads 7 to 35 times, a third of an idle bridge's first
// minute. A file event, a hook or a workspace read with a session at work
// (snapshot) brings it back to its base rate; where folders are not
// watched the sweep finds new session files, and it backs off step by
// step.
//
// maxSweep is the longest the sweep waits while every agent is idle,
// where folders are watched: there every new file and write has its own
// event, and the sweep only backs them up. Each sweep stats every
// followed folder and file, and the runtime wakes a hundred times around
// those system calls: a minute apart they cost an idle laptop almost
// nothing. Where folders are not watched (kqueue), the sweep is how a new
// session file is found, so it waits at most maxSweepUnwatched.
const (
	maxSweep          = 60 * time.Second
	maxSweepUnwatched = 20 * time.Second
)

func newSweeper(e *Engine) *sweeper {
	return &sweeper{e: e, base: e.cfg.SweepEvery, every: e.cfg.SweepEvery, stamps: make(map[string]stamp)}
}

// active is told of a file event: agents are at work, so the sweep comes
// back to its base rate. It reports whether the interval shrank.
func (s *sweeper) active() bool {
	s.restStart = false
	if s.every == s.base {
		return false
	}
	s.every = s.base
	return true
}

// Coalescing with the scan. Each burst of system calls, a sweep's or a
// scan's, wakes the runtime's threads about a hundred times before they
// sleep again, so an idle bridge costs two bursts a minute where its sweep
// and its scan tick apart. A backed-off sweep therefore runs right after a
// scan once half its interval has passed (withScan), and its own timer is
// a quarter longer than the interval (timer), so that the scan leads and
// the timer only stands in for scans further apart.

// withScan reports whether a scan that just ran should bring the sweep
// forward to now.
func (s *sweeper) withScan(now time.Time) bool {
	return s.every > s.base && now.Sub(s.last) >= s.every/2
}

// timer is how long the sweep's own timer waits when the next sweep is
// due in every.
func (s *sweeper) timer(every time.Duration) time.Duration {
	if every > s.base {
		return every + every/4
	}
	return every
}

// sweep runs one sweep and returns when the next one is due.
func (s *sweeper) sweep() time.Duration {
	s.last = time.Now()
	s.e.mu.RLock()
	ws := make([]*workspace, 0, len(s.e.workspaces))
	for _, w := range s.e.workspaces {
		ws = append(ws, w)
	}
	s.e.mu.RUnlock()
	for _, r := range s.e.rootsPending() {
		s.e.watchRoot(r) // an event on the way down may have been missed
	}
	watchDirs := *s.e.cfg.WatchDirs
	seen := make(map[string]bool, len(s.stamps))
	if !watchDirs {
		if day := s.e.datedDay(); day != "" {
			seen[day] = true
			if s.changed(day, s.e.started) {
				s.e.askRescan() // where folders are not watched: a new dated record
			}
		}
	}
	busy, anyWorking, polled := false, false, s.e.polling()
	full := s.full(polled)
	atWork := s.every <= s.base // not backed off: agents were at work
	for _, w := range ws {
		snap := w.snap.Load()
		poke, relook := false, false
		working := false
		for _, si := range snap.sessions {
			working = working || si.Status == event.StateWorking
		}
		// A workspace at work has every path looked at: the sweep backs
		// up its events.
		look := full || working
		if dir := snap.ws.ProjectDir; dir != "" {
			seen[dir] = true
			if s.skip(dir, dir, look) {
				// a quiet folder with a watch of its own: its events tell
			} else if s.changed(dir, snap.listedAt) {
				poke, relook = true, true
				if watchDirs {
					s.e.watch(dir) // the folder may have appeared since the scan
				}
			}
		}
		for i, p := range snap.paths {
			seen[p] = true
			if s.skip(p, s.watchOf(p, watchDirs), look) {
				continue // quiet, and its watch tells of any write
			}
			if s.grown(p, snap.read[i], snap.readAt, polled) {
				poke = true
				if !watchDirs {
					s.e.watch(p)
				}
			} else if !watchDirs && s.quiet(p) {
				s.e.watchQuiet(p) // its own watch tells of a write from now on
			}
		}
		if snap.subDirs && !watchDirs {
			poke = true // subagent files are not watched here: look each sweep
		}
		busy = busy || working
		anyWorking = anyWorking || working
		if snap.orphanCandidate(s.last, s.e.cfg.QuietAfter) {
			w.enqueue(w.reap) // a working session gone quiet: is its agent still there?
		}
		if poke {
			w.poke(relook)
			busy = true
		}
	}
	for p := range s.stamps {
		if !seen[p] {
			delete(s.stamps, p)
		}
	}
	if full || atWork || s.last.Sub(s.lastBrowse) >= browseIdleEvery {
		s.e.sweepBrowse()
		s.lastBrowse = s.last
	}
	if busy || polled {
		// Paths without a watch hear of nothing but the sweep: it must
		// not back off while there are any.
		s.every = s.base
	} else {
		limit := maxSweep
		if !watchDirs {
			limit = maxSweepUnwatched
		}
		s.every = min(2*s.every, max(limit, s.base))
		if s.restStart && watchDirs {
			s.every = max(limit, s.base)
		}
	}
	s.restStart = s.restStart && !anyWorking && !polled
	return s.every
}

// changed stats path and reports whether it differs from the last sweep.
// A path seen for the first time counts as changed: it may have grown
// between the workspace's read and this stat, and one spare read is cheap
// where a missed write would leave a turn unseen. A missing path is
// remembered as missing, so its appearance is a change.
func (s *sweeper) changed(path string, readAt time.Time) bool {
	now := stamp{size: -1}
	stat := s.stat
	if stat == nil {
		stat = os.Stat
	}
	if info, err := stat(path); err == nil {
		now = stamp{mod: info.ModTime(), size: info.Size()}
	}
	old, had := s.stamps[path]
	s.stamps[path] = now
	if !had { // unless the workspace began reading it after it last changed
		return now.size < 0 || !now.mod.Before(readAt.Add(-mtimeSlack))
	}
	return old != now
}

// grown is changed for a followed file, less the changes the workspace
// has read already: under load every busy file changes between two
// sweeps, and poking each workspace whose events already came would make
// a burst of empty reads every sweep that the next real line waits behind.
// A file that no longer ends where the workspace stopped reading has
// something to read (or was cut short); one that changed in place to the
// same size was replaced, which its folder's watch or its own reports;
// while some paths are polled instead of watched, any change is read.
func (s *sweeper) grown(path string, read int64, readAt time.Time, polled bool) bool {
	if !s.changed(path, readAt) {
		return false
	}
	return polled || s.stamps[path].size != read
}

// mtimeSlack covers file systems that keep modification times coarsely.
const mtimeSlack = 2 * time.Second

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}
