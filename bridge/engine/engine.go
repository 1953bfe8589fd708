// Package engine keeps the bridge's live picture: it rescans for
// workspaces, follows every agent session of each workspace (one tail per
// session, fsnotify for speed, a stat sweep as the safety net) and
// publishes what happens into the stream hub, one topic per workspace. It
// has no UI and no HTTP; the api and tray packages read it.
package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/stream"
)

// Scanner finds workspaces; discover.Scanner in production.
type Scanner interface {
	Scan(ctx context.Context) ([]discover.Workspace, error)
}

// Config tunes the engine. Zero values take the defaults in withDefaults.
type Config struct {
	Scanner Scanner
	Hub     *stream.Hub
	Log     zerolog.Logger
	// Agents are the agents whose records the engine reads, each its
	// driver (bridge/agent/<name>); the first is the default (see
	// agents). An agent keeping one folder per directory
	// (agent.PerDirectory) has its root watched for new folders, one
	// writing dated folders (agent.Dated) its root for new records.
	Agents []agent.Agent

	ScanEvery   time.Duration // rescan for workspaces (default 3 s)
	ScanTimeout time.Duration // give up on one scan after this (default 10 s): a locked database never stalls the engine
	SweepEvery  time.Duration // stat live files as a backstop to fsnotify (default 1 s)
	QuietAfter  time.Duration // infer an old-format turn's end after this quiet (default 2 s); a dead agent's turn ends after it too
	// OrphanAfter ends an open turn whose agent was never known (a record
	// from elsewhere) after this quiet (default 30 min; orphan.go). Where
	// the Scanner is a ProcessWitness that finds no agent process that can
	// be the turn's writer, QuietAfter ends it (unowned.go).
	OrphanAfter time.Duration
	// StopWait is how long a turn whose end only a quiet spell would infer
	// waits for its Stop hook's word where the session's hooks call in
	// (agent.StopHooked's Held), before it ends as after a quiet spell
	// (default 10 min: a tool call's input can stream for minutes).
	StopWait  time.Duration
	TailBytes int64 // on first sight read only this much of a transcript (default 256 KiB)
	// ColdTailBytes is TailBytes for the sessions of the workspaces the
	// first scan finds, read all at once at start: a thousand workspaces'
	// tails are what a cold start costs (default 32 KiB, at most
	// TailBytes). A session first seen later, likely new and just past
	// its start, is read from TailBytes back.
	ColdTailBytes int64
	ActiveWindow  time.Duration // a transcript written this recently is a live session (default 10 min)
	// WatchDirs watches transcript folders (cheap with inotify) instead of
	// the live files (kqueue opens every file in a watched folder).
	WatchDirs *bool
	// Prices prices every turn (the built-in table overlaid with the
	// user's prices.json); nil means the built-in table.
	Prices *price.Table
	// OnUser sees every user event before it is published and may rewrite
	// it: the injector recognises its own messages there.
	OnUser func(workspace string, e *event.Event)
	// RescanOn are files (Conductor's database and its -wal) and folders
	// (Conductor's workspaces root) whose change means the workspace list
	// may have changed: their folders are watched and a change asks for a
	// scan at once, so the timer can run slowly.
	RescanOn []string
	// IdleScanEvery is how far the scan timer backs off while nothing
	// changes (default 5 min; never below ScanEvery): Conductor's database
	// and the folders are watched, and a file event after an idle spell
	// asks for a scan (the agent's process), so the timer is only a
	// safety net.
	IdleScanEvery time.Duration
	// MaxWatches caps the paths given to fsnotify (0: no cap but the
	// system's own). Past it, as when the system runs out of inotify
	// watches or kqueue descriptors, a path is polled by the sweep.
	MaxWatches int
	// Browse follows each workspace's gstack browse server (browse.go;
	// nil: none).
	Browse Browse
	// Files bounds the session records kept open between reads (see
	// linefile.Files; nil: linefile.DefaultOpenFiles). Busy ones stay
	// open; one unread for a minute gives its descriptor back.
	Files *linefile.Files
	// OnIdle is told when the engine falls idle (true: the sweep has
	// backed off, no session at work and no file event since its last
	// look) and when work resumes (false: a file event or a hook after an
	// idle spell). It runs on the sweep's goroutine and must not block:
	// the app holds off the Go runtime's periodic collection meanwhile
	// (bridge/gcidle).
	OnIdle func(idle bool)
}

func (c *Config) withDefaults() {
	if c.ScanEvery <= 0 {
		c.ScanEvery = 3 * time.Second
	}
	if c.IdleScanEvery < c.ScanEvery {
		c.IdleScanEvery = max(c.ScanEvery, 5*time.Minute)
	}
	if c.ScanTimeout <= 0 {
		c.ScanTimeout = 10 * time.Second
	}
	if c.SweepEvery <= 0 {
		c.SweepEvery = time.Second
	}
	if c.QuietAfter <= 0 {
		c.QuietAfter = 2 * time.Second
	}
	if c.OrphanAfter <= 0 {
		c.OrphanAfter = 30 * time.Minute
	}
	if c.StopWait <= 0 {
		c.StopWait = 10 * time.Minute
	}
	if c.TailBytes <= 0 {
		c.TailBytes = 256 << 10
	}
	if c.ColdTailBytes <= 0 {
		c.ColdTailBytes = min(32<<10, c.TailBytes)
	}
	if c.ActiveWindow <= 0 {
		c.ActiveWindow = 10 * time.Minute
	}
	if c.WatchDirs == nil {
		v := runtime.GOOS == "linux"
		c.WatchDirs = &v
	}
	if c.Files == nil {
		c.Files = linefile.NewFiles(linefile.DefaultOpenFiles)
	}
}

// Engine is the live set of workspaces and their sessions.
type Engine struct {
	cfg Config
	log zerolog.Logger

	mu         sync.RWMutex
	workspaces map[string]*workspace // by workspace id
	byProject  map[string][]string   // transcript folder → workspace ids, for routing file events
	watched    map[string]bool       // paths given to fsnotify
	polled     map[string]bool       // paths that could not be watched for want of watches: the sweep polls them
	watcher    watcher
	ctx        context.Context
	notify     []chan struct{}
	// hinted are workspaces a hook told us about before any scan could
	// find them (a session's first hooks run before its transcript holds
	// a cwd). Scans keep them until they find the directory themselves.
	hinted map[string]discover.Workspace // by directory
	// followedPaths are the paths the workspaces' snapshots list, each
	// with the workspaces listing it and where a plain write to it goes
	// (followed.go).
	followedPaths map[string]*followedPath

	sweepIdle  atomic.Bool   // the sweep has backed off: a file event must wake it
	sweepEvery atomic.Int64  // the sweep's interval (a time.Duration), for tests
	sweeps     atomic.Uint64 // sweeps run, for tests
	// folders counts the file events that may have added or removed a
	// file in a watched folder (all but plain writes) and the watcher's
	// errors (an overflowed queue): while it stands still, a session
	// whose folders are watched need not look at them (see tail.look).
	folders   atomic.Uint64
	watchErrs atomic.Uint64 // the watcher's errors: a sweep after one stats every path (sweepskip.go)
	// quietWatches counts the quiet files watched on their own where
	// folders are not (watchQuiet), against maxQuietWatches.
	quietWatches map[string]bool
	looks        atomic.Int64    // folder looks made (tail.looked), for tests
	reaps        atomic.Int64    // looks for gone agents made (reap), for tests
	reads        chan struct{}   // slots for workspaces reading their sessions at once
	runq         chan *workspace // to a runner waiting for work (runner.go)
	waiting      atomic.Int32    // runners waiting on runq
	keep         int32           // at most this many wait
	scanMu       sync.Mutex      // scans are serialised
	rescanOn     map[string]bool // RescanOn, cleaned
	rescan       chan struct{}
	nudge        chan struct{} // a hook said an agent is at work: sweep at the base rate
	scanDone     chan struct{} // a scan just ran: a backed-off sweep runs with it
	// projectsRoot and datedRootWatch watch the agents' roots, or the
	// folders above them while they do not exist (roots.go); ancestors
	// counts the roots each folder watched only for them is watched for.
	projectsRoot   *rootWatch
	datedRootWatch *rootWatch
	ancestors      map[string]int
	// agents are Config.Agents; projects is the root of the agent
	// keeping one record folder per directory (projectsSource its name),
	// datedRoot and datedDepth where the dated agent writes.
	agents         agents
	projects       string
	projectsSource string
	datedRoot      string
	datedDepth     int
	// newRecords are the records no workspace follows that file events
	// named (the watch loop's own; see newrecords.go).
	newRecords map[string]*newRecord
	scanBegan  atomic.Int64  // when the last scan began (unix ns)
	scanDue    atomic.Int64  // when the scan timer fires next (unix ns), for tests
	scanned    chan struct{} // closed after the first scan
	firstScan  sync.Once
	initial    sync.WaitGroup // the first scan's workspaces, until each has read its sessions once
	caughtUp   chan struct{}  // closed once they all have
	started    time.Time
	rows       rowDBs // databases of records of rows, watched (rows.go)
}

// New returns an engine; Run starts it.
func New(cfg Config) *Engine {
	cfg.withDefaults()
	e := &Engine{
		cfg:          cfg,
		agents:       agents(cfg.Agents),
		log:          cfg.Log,
		workspaces:   make(map[string]*workspace),
		byProject:    make(map[string][]string),
		watched:      make(map[string]bool),
		polled:       make(map[string]bool),
		quietWatches: make(map[string]bool),
		hinted:       make(map[string]discover.Workspace),
		rescan:       make(chan struct{}, 1),
		nudge:        make(chan struct{}, 1),
		scanDone:     make(chan struct{}, 1),
		scanned:      make(chan struct{}),
		caughtUp:     make(chan struct{}),
		reads:        make(chan struct{}, max(4, 2*runtime.GOMAXPROCS(0))),
		runq:         make(chan *workspace),
		keep:         keepRunners(),
		started:      time.Now(),
	}
	e.projects, e.projectsSource = e.agents.projects()
	e.datedRoot, e.datedDepth = e.agents.dated()
	e.ancestors = make(map[string]int)
	// Made here, not in Run: a followed path's route is worked out when a
	// workspace first lists it (followed.go), and must see them.
	e.rescanOn = make(map[string]bool, len(cfg.RescanOn))
	for _, p := range cfg.RescanOn {
		e.rescanOn[filepath.Clean(p)] = true
	}
	e.projectsRoot = &rootWatch{path: e.projects, found: e.projectsFound}
	if *cfg.WatchDirs {
		// Where folders are not watched the sweep stats the newest day
		// folder instead.
		e.datedRootWatch = &rootWatch{path: e.datedRoot, found: e.datedFound}
	}
	return e
}

// Ready is closed once the first scan has started every workspace.
func (e *Engine) Ready() <-chan struct{} { return e.scanned }

// CaughtUp is closed once every workspace the first scan found has read
// its sessions once: the cold start's catch-up is over, and what it
// allocated is garbage.
func (e *Engine) CaughtUp() <-chan struct{} { return e.caughtUp }

// Run scans, follows and watches until ctx ends. Scans run on their own
// goroutine, so a slow or locked database never holds up file events.
func (e *Engine) Run(ctx context.Context) error {
	w, err := newWatcher()
	if err != nil {
		// Without a watcher the sweep still finds every change, only later.
		e.log.Warn().Err(err).Msg("file watching unavailable; polling transcripts every sweep")
		w = nil
	}
	e.mu.Lock()
	e.ctx, e.watcher = ctx, w
	e.mu.Unlock()
	if w != nil {
		defer w.Close()
		e.watchRoot(e.projectsRoot)
		e.watchDated()
		for _, p := range e.cfg.RescanOn {
			p = filepath.Clean(p)
			if isDir(p) {
				e.watch(p) // a folder: a new entry in it
			} else {
				e.watch(filepath.Dir(p)) // a file: watch its folder, it may not exist yet
			}
		}
	}

	e.scan(ctx)
	var scans sync.WaitGroup
	scans.Go(func() { e.scanLoop(ctx) })
	defer scans.Wait()
	// The sweep has its own goroutine: a sweep stats every followed file,
	// and file events waiting behind it would wait that long to be read.
	active := make(chan struct{}, 1)
	scans.Go(func() { e.sweepLoop(ctx, active) })
	if w == nil {
		<-ctx.Done()
		return nil
	}
	w.run(ctx, &watchLoop{e: e, active: active})
	return nil
}

// watchLoop is what the engine does with the watcher's events, on the
// watcher's goroutine.
type watchLoop struct {
	e      *Engine
	active chan<- struct{} // tells a backed-off sweep that agents are at work
	here   []*workspace    // written records, read once the batch is routed (workHere)
}

func (l *watchLoop) event(ev fsnotify.Event) {
	e := l.e
	if !e.routeFollowed(ev, &l.here) { // most events: a line written to a followed record
		if e.rootNoise(ev) {
			return
		}
		e.route(ev, &l.here)
	}
	if e.sweepIdle.Load() { // tell a backed-off sweep; a busy one needs no word
		select {
		case l.active <- struct{}{}:
		default:
		}
	}
}

func (l *watchLoop) batchDone() {
	for _, w := range l.here {
		w.workHere()
	}
	clear(l.here)
	l.here = l.here[:0]
}

func (l *watchLoop) watchError(err error) {
	l.e.folders.Add(1)   // events may have been lost: every folder is looked at again
	l.e.watchErrs.Add(1) // and every path by the next sweep
	l.e.log.Warn().Err(err).Msg("file watcher")
}

// sweepLoop runs the safety-net sweep, backing off while all is idle and
// coming back to its base rate when a file event or a hook (active,
// nudge) says agents are at work.
func (e *Engine) sweepLoop(ctx context.Context, active <-chan struct{}) {
	sw := newSweeper(e)
	sweep := time.NewTimer(sw.every)
	defer sweep.Stop()
	run := func() {
		sweep.Reset(sw.timer(sw.sweep()))
		e.sweeps.Add(1)
		if e.cfg.Hub != nil {
			// A journal not written for a while gives its descriptor
			// back: open files follow the agents at work.
			e.cfg.Hub.ReleaseIdle(journalIdle)
		}
		e.cfg.Files.ReleaseIdle(journalIdle) // records too
	}
	caughtUp := e.caughtUp
	for {
		select {
		case <-ctx.Done():
			return
		case <-caughtUp:
			caughtUp = nil
			// A start at rest is an idle spell already (restingStart).
			sw.restStart = e.atRest()
			continue
		case <-sweep.C:
			run()
		case <-e.scanDone:
			if sw.withScan(time.Now()) {
				run()
			}
		case <-e.nudge:
			sw.wake(sweep)
		case <-active:
			if sw.wake(sweep) {
				// Agents are at work after an idle spell: the scan, far
				// apart while idle, learns their processes now.
				e.askRescan()
			}
		}
		e.sweepEvery.Store(int64(sw.every))
		idle := sw.every > sw.base
		if e.sweepIdle.Swap(idle) != idle && e.cfg.OnIdle != nil {
			e.cfg.OnIdle(idle)
		}
	}
}

// wake brings a backed-off sweep back to its base rate: agents are at
// work again, and it must not wait out its long interval. It reports
// whether the sweep had backed off.
func (s *sweeper) wake(t *time.Timer) bool {
	if s.active() {
		t.Reset(s.every)
		return true
	}
	return false
}

// scanLoop rescans whenever asked to (a watched database, folder or hook
// says something changed) and on a timer as the safety net. The timer
// backs off, four times longer each time (3 s, 12 s, 48 s, …) up to
// IdleScanEvery, while scans find nothing new, and comes back to
// ScanEvery as soon as one does. Each scan walks the process table and
// every transcript folder, a burst of a few thousand system calls that
// wakes the runtime's threads a hundred times or more; what the timer
// still catches that no watch tells of (an agent's process, a directory
// gone) can wait: a new session, in a known folder, a new one or a root
// made after the start (roots.go), is a file event that asks for a scan.
//
// A start that finds every session at rest is an idle spell already: by
// the time the cold start has caught up, nothing has asked for a scan and
// no agent is at work, so the timer moves on as if its 3 s and 12 s scans
// had found nothing new (idleStart). Those two scans were most of an idle
// bridge's first minute; an agent starting meanwhile writes, and its file
// event asks for a scan (the sweep backs off after its first look, a
// second in).
func (e *Engine) scanLoop(ctx context.Context) {
	every := e.cfg.ScanEvery
	timer := time.NewTimer(every)
	defer timer.Stop()
	last := time.Now()
	arm := func(d time.Duration) {
		timer.Reset(d)
		e.scanDue.Store(time.Now().Add(d).UnixNano())
	}
	e.scanDue.Store(last.Add(every).UnixNano())
	caughtUp := e.caughtUp
	quiet := true // no scan asked for or run since the cold start's
	for {
		select {
		case <-ctx.Done():
			return
		case <-caughtUp:
			caughtUp = nil
			if quiet && e.atRest() {
				every = idleStart(e.cfg.ScanEvery, e.cfg.IdleScanEvery)
				arm(time.Until(last.Add(every)))
			}
			continue
		case <-timer.C:
		case <-e.rescan:
			quiet = false
			// Conductor writes its database many times a turn: asks that
			// come faster than minScanGap are folded into one scan.
			timer.Stop()
			if wait := minScanGap - time.Since(last); wait > 0 {
				arm(wait)
				continue
			}
		}
		last, quiet = time.Now(), false
		if e.scan(ctx) {
			every = e.cfg.ScanEvery
		} else {
			every = min(4*every, e.cfg.IdleScanEvery)
		}
		arm(every)
		select {
		case e.scanDone <- struct{}{}:
		default:
		}
	}
}

// idleStart is the scan timer's interval after a start that found all at
// rest: the third step of its back-off (48 s by default), as if the scans
// at its first two steps had found nothing new.
func idleStart(scanEvery, idleEvery time.Duration) time.Duration {
	return min(16*scanEvery, idleEvery)
}

// atRest reports whether no session of any workspace is at work or
// waiting for an answer.
func (e *Engine) atRest() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, w := range e.workspaces {
		for _, si := range w.snap.Load().sessions {
			if si.Status == event.StateWorking || si.Status == event.StateNeedsInput {
				return false
			}
		}
	}
	return true
}

// journalIdle is how long a workspace's journal stays open unwritten, and
// a session's record unread.
const journalIdle = time.Minute

// minScanGap is the least time between two scans asked for by watches.
const minScanGap = 250 * time.Millisecond

// askRescan asks the scan loop for a scan soon; it never blocks.
func (e *Engine) askRescan() {
	select {
	case e.rescan <- struct{}{}:
	default:
	}
}

// Changes returns a channel that receives (coalesced) whenever the
// workspace list or a workspace's state changed: what Workspaces shows of
// them, but for each session's LastEventID and LastActivity, which move
// with every line read (a reader wanting those now and then reads them
// again on a timer; events come from the topics).
func (e *Engine) Changes() <-chan struct{} {
	c := make(chan struct{}, 1)
	e.mu.Lock()
	e.notify = append(e.notify, c)
	e.mu.Unlock()
	return c
}

func (e *Engine) changed() {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, c := range e.notify {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// scan reconciles the workspaces with a fresh list from the scanner and
// reports whether anything changed.
func (e *Engine) scan(ctx context.Context) bool {
	e.scanMu.Lock()
	defer e.scanMu.Unlock()
	// A scan asked for before this one begins is this one: it reads
	// everything after the ask. Without this the projects root's watch,
	// taken just before the first scan, asked for a second scan right
	// after it, a burst of a hundred wake-ups at the start of an idle
	// bridge's first minute.
	select {
	case <-e.rescan:
	default:
	}
	e.scanBegan.Store(time.Now().UnixNano())
	sctx, cancel := context.WithTimeout(ctx, e.cfg.ScanTimeout)
	list, err := e.cfg.Scanner.Scan(sctx)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn().Err(err).Msg("workspace scan")
		}
		if list == nil {
			return false
		}
	}
	e.openTopics(list)
	e.mu.Lock()
	if e.ctx == nil {
		// Run has not begun: a hook's Rescan can come first. Run's own
		// first scan will find the same list.
		e.mu.Unlock()
		return false
	}
	changed := false
	found := make(map[string]bool, len(list))
	for _, ws := range list {
		found[ws.Directory] = true
	}
	for dir, ws := range e.hinted {
		if found[dir] || !isDir(dir) {
			delete(e.hinted, dir) // the scan knows it now, or it is gone
			continue
		}
		list = append(list, ws)
	}
	seen := make(map[string]bool, len(list))
	for _, ws := range list {
		if ws.Archived || seen[ws.ID] {
			continue
		}
		seen[ws.ID] = true
		if w, ok := e.workspaces[ws.ID]; ok {
			old := w.snap.Load().ws
			if !sameWorkspace(old, ws) {
				if old.ProjectDir != ws.ProjectDir {
					e.unindexLocked(w.id, old.ProjectDir)
					e.indexLocked(w.id, ws.ProjectDir)
				}
				if old.Directory != ws.Directory {
					e.browseForgetLocked(w.id, old.Directory)
					e.browseFollowLocked(w.id, ws.Directory, w.topic)
				}
				w.setWorkspace(ws)
				changed = true
			}
			w.recheckPIDs() // a hooked agent may have gone with nothing else changed
			continue
		}
		if err := e.startLocked(ws); err != nil {
			e.log.Warn().Err(err).Str("workspace", ws.ID).Msg("follow workspace")
			continue
		}
		changed = true
	}
	for id, w := range e.workspaces {
		if !seen[id] {
			w.stop()
			w.poke(false) // its goroutine lets its records of rows go
			e.browseForgetLocked(id, w.snap.Load().ws.Directory)
			delete(e.workspaces, id)
			e.cfg.Hub.Drop(id)
			e.unindexLocked(id, w.snap.Load().ws.ProjectDir)
			e.unfollowLocked(w)
			e.log.Info().Str("workspace", id).Msg("workspace gone or archived; no longer followed")
			changed = true
		}
	}
	// Closed under the lock: a workspace started from now on (by a hook)
	// is not one of the first scan's, and the count is complete.
	e.firstScan.Do(func() {
		close(e.scanned)
		go func() { e.initial.Wait(); close(e.caughtUp) }()
	})
	e.mu.Unlock()
	e.watchDated() // a new day folder, if the day turned
	if changed {
		e.changed()
	}
	return changed
}

// sameWorkspace reports whether a scan found nothing new about a workspace
// (seen times aside), so its goroutine need not be woken.
func sameWorkspace(a, b discover.Workspace) bool {
	if a.PID != b.PID || a.Branch != b.Branch || a.Name != b.Name || a.DisplayName != b.DisplayName || a.Repo != b.Repo ||
		a.Workflow != b.Workflow || a.ProjectDir != b.ProjectDir || a.ConductorStatus != b.ConductorStatus ||
		a.ConductorSession != b.ConductorSession || a.Source != b.Source || len(a.Sessions) != len(b.Sessions) {
		return false
	}
	for i := range a.Sessions {
		x, y := a.Sessions[i], b.Sessions[i]
		x.UpdatedAt, y.UpdatedAt = time.Time{}, time.Time{}
		if x != y {
			return false
		}
	}
	return true
}

// openTopics opens the streams of workspaces not followed yet, a few at a
// time and before the engine's lock is taken: each loads a journal from
// disk, and a cold start on a thousand workspaces would otherwise open
// them one by one with every reader of the engine waiting.
func (e *Engine) openTopics(list []discover.Workspace) {
	var fresh []string
	e.mu.RLock()
	for _, ws := range list {
		if _, ok := e.workspaces[ws.ID]; !ok && !ws.Archived {
			fresh = append(fresh, ws.ID)
		}
	}
	e.mu.RUnlock()
	if len(fresh) < 2 {
		return // startLocked opens it
	}
	ids := make(chan string)
	var wg sync.WaitGroup
	for range min(len(fresh), 2*runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for id := range ids {
				e.cfg.Hub.Topic(id) // an error is met again, and logged, by startLocked
			}
		})
	}
	for _, id := range fresh {
		ids <- id
	}
	close(ids)
	wg.Wait()
}

func (e *Engine) startLocked(ws discover.Workspace) error {
	topic, err := e.cfg.Hub.Topic(ws.ID)
	if err != nil {
		return fmt.Errorf("open stream: %w", err)
	}
	w := newWorkspace(e, ws, topic)
	select {
	case <-e.scanned:
	default: // found by the first scan
		w.initial = true
		e.initial.Add(1)
	}
	e.workspaces[ws.ID] = w
	e.indexLocked(ws.ID, ws.ProjectDir)
	w.follow()
	e.browseFollowLocked(ws.ID, ws.Directory, topic)
	e.log.Debug().Str("workspace", ws.ID).Str("dir", ws.Directory).Msg("following workspace")
	return nil
}
