// Package engine keeps the bridge's live picture: it rescans for
// workspaces, follows each workspace's live transcript (fsnotify for speed,
// a cheap stat sweep as the safety net) and publishes what happens into the
// stream hub. It has no UI and no HTTP; the api and tray packages read it.
package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rs/zerolog"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

// Scanner finds workspaces; discover.Scanner in production.
type Scanner interface {
	Scan(ctx context.Context) ([]discover.Workspace, error)
}

// Config tunes the engine. Zero values take the defaults in withDefaults.
type Config struct {
	Scanner        Scanner
	Hub            *stream.Hub
	Log            zerolog.Logger
	ClaudeProjects string // watched for new project folders

	ScanEvery    time.Duration // rescan for workspaces (default 3 s)
	SweepEvery   time.Duration // stat live files as a backstop to fsnotify (default 1 s)
	QuietAfter   time.Duration // infer an old-format turn's end after this quiet (default 2 s)
	TailBytes    int64         // on first sight read only this much of a transcript (default 256 KiB)
	ActiveWindow time.Duration // a transcript written this recently is live (default 10 min)
	// WatchDirs watches transcript folders (cheap with inotify) instead of
	// the live files (kqueue opens every file in a watched folder).
	WatchDirs *bool
	// OnUser sees every user event before it is published and may rewrite
	// it: the injector recognises its own messages there.
	OnUser func(workspace string, e *event.Event)
}

func (c *Config) withDefaults() {
	if c.ScanEvery <= 0 {
		c.ScanEvery = 3 * time.Second
	}
	if c.SweepEvery <= 0 {
		c.SweepEvery = time.Second
	}
	if c.QuietAfter <= 0 {
		c.QuietAfter = 2 * time.Second
	}
	if c.TailBytes <= 0 {
		c.TailBytes = 256 << 10
	}
	if c.ActiveWindow <= 0 {
		c.ActiveWindow = 10 * time.Minute
	}
	if c.WatchDirs == nil {
		v := runtime.GOOS == "linux"
		c.WatchDirs = &v
	}
}

// Engine is the live set of workspaces and their followers.
type Engine struct {
	cfg Config
	log zerolog.Logger

	mu        sync.RWMutex
	followers map[string]*follower // by workspace id
	watched   map[string]bool      // paths given to fsnotify
	watcher   *fsnotify.Watcher
	ctx       context.Context
	rescan    chan struct{}
	notify    []chan struct{}
	scanned   chan struct{} // closed after the first scan
	firstScan sync.Once
	// hinted are workspaces a hook told us about before any scan could
	// find them (a session's first hooks run before its transcript holds
	// a cwd). Scans keep them until they find the directory themselves.
	hinted  map[string]discover.Workspace // by directory
	started time.Time
}

// New returns an engine; Run starts it.
func New(cfg Config) *Engine {
	cfg.withDefaults()
	return &Engine{
		cfg:       cfg,
		log:       cfg.Log,
		followers: make(map[string]*follower),
		watched:   make(map[string]bool),
		hinted:    make(map[string]discover.Workspace),
		rescan:    make(chan struct{}, 1),
		scanned:   make(chan struct{}),
		started:   time.Now(),
	}
}

// Ready is closed once the first scan has started every follower.
func (e *Engine) Ready() <-chan struct{} { return e.scanned }

// Run scans, follows and watches until ctx ends.
func (e *Engine) Run(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		// Without fsnotify the sweep still finds every change, only later.
		e.log.Warn().Err(err).Msg("file watching unavailable; polling transcripts every sweep")
	}
	e.mu.Lock()
	e.ctx, e.watcher = ctx, w
	e.mu.Unlock()
	var fsEvents <-chan fsnotify.Event
	var fsErrors <-chan error
	if w != nil {
		defer w.Close()
		fsEvents, fsErrors = w.Events, w.Errors
		e.watch(e.cfg.ClaudeProjects)
	}

	e.scan(ctx)
	scan := time.NewTicker(e.cfg.ScanEvery)
	defer scan.Stop()
	sweep := time.NewTicker(e.cfg.SweepEvery)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-scan.C:
			e.scan(ctx)
		case <-e.rescan:
			e.scan(ctx)
		case <-sweep.C:
			e.sweep()
		case ev, ok := <-fsEvents:
			if ok {
				e.route(ev)
			}
		case err, ok := <-fsErrors:
			if ok {
				e.log.Warn().Err(err).Msg("file watcher")
			}
		}
	}
}

// scan reconciles the followers with a fresh list of workspaces.
func (e *Engine) scan(ctx context.Context) {
	list, err := e.cfg.Scanner.Scan(ctx)
	if err != nil {
		e.log.Warn().Err(err).Msg("workspace scan")
		if list == nil {
			return
		}
	}
	seen := make(map[string]bool, len(list))
	e.mu.Lock()
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
	for _, ws := range list {
		if ws.Archived || seen[ws.ID] {
			continue
		}
		seen[ws.ID] = true
		if f, ok := e.followers[ws.ID]; ok {
			f.mu.Lock()
			if f.ws.PID != ws.PID || f.ws.Branch != ws.Branch || f.ws.ConductorStatus != ws.ConductorStatus {
				changed = true
			}
			f.ws = ws
			f.mu.Unlock()
			continue
		}
		if err := e.startLocked(ws); err != nil {
			e.log.Warn().Err(err).Str("workspace", ws.ID).Msg("follow workspace")
			continue
		}
		changed = true
	}
	for id, f := range e.followers {
		if !seen[id] {
			f.stop()
			delete(e.followers, id)
			e.cfg.Hub.Drop(id)
			e.unwatchLocked(f.ws.ProjectDir)
			e.log.Info().Str("workspace", id).Msg("workspace gone or archived; no longer followed")
			changed = true
		}
	}
	e.mu.Unlock()
	e.firstScan.Do(func() { close(e.scanned) })
	if changed {
		e.changed()
	}
}

func (e *Engine) startLocked(ws discover.Workspace) error {
	topic, err := e.cfg.Hub.Topic(ws.ID)
	if err != nil {
		return fmt.Errorf("open stream: %w", err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	f := &follower{eng: e, topic: topic, kick: make(chan struct{}, 1), do: make(chan func()), ctx: ctx, stop: cancel, ws: ws}
	e.followers[ws.ID] = f
	if *e.cfg.WatchDirs {
		e.watchLocked(ws.ProjectDir)
	}
	go f.run(ctx)
	e.log.Debug().Str("workspace", ws.ID).Str("dir", ws.Directory).Msg("following workspace")
	return nil
}

// sweep stats each live transcript and its folder and pokes the followers
// whose files changed: the safety net for missed or unsupported fsnotify
// events, and how new session files are noticed where folders are not
// watched.
func (e *Engine) sweep() {
	e.mu.RLock()
	fs := make([]*follower, 0, len(e.followers))
	for _, f := range e.followers {
		fs = append(fs, f)
	}
	e.mu.RUnlock()
	for _, f := range fs {
		f.mu.Lock()
		dir, path := f.ws.ProjectDir, f.path
		dirMod, liveMod, liveSize := f.dirMod, f.liveMod, f.liveSize
		f.mu.Unlock()
		poke, relook := false, false
		if info, err := os.Stat(dir); err == nil && !info.ModTime().Equal(dirMod) {
			poke, relook = true, true
			f.mu.Lock()
			f.dirMod = info.ModTime()
			f.mu.Unlock()
			if *e.cfg.WatchDirs {
				e.watch(dir) // the folder may have appeared since the scan
			}
		}
		if path != "" {
			if info, err := os.Stat(path); err == nil && (!info.ModTime().Equal(liveMod) || info.Size() != liveSize) {
				poke = true
				f.mu.Lock()
				f.liveMod = info.ModTime()
				f.mu.Unlock()
				if !*e.cfg.WatchDirs {
					e.watch(path)
				}
			}
		}
		if f.subCount.Load() > 0 && !*e.cfg.WatchDirs {
			poke = true // subagent files are not watched here: look each sweep
		}
		if poke {
			f.poke(relook)
		}
	}
}

// route pokes the followers a file event concerns.
func (e *Engine) route(ev fsnotify.Event) {
	dir := filepath.Dir(ev.Name)
	if filepath.Clean(dir) == filepath.Clean(e.cfg.ClaudeProjects) {
		// A new project folder may be a new workspace.
		select {
		case e.rescan <- struct{}{}:
		default:
		}
		return
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, f := range e.followers {
		if strings.HasPrefix(dir, f.ws.ProjectDir+string(filepath.Separator)) {
			f.poke(false) // a subagent transcript of one of its sessions
			continue
		}
		if f.ws.ProjectDir != dir { // ws.ProjectDir only changes under e.mu
			continue
		}
		f.mu.Lock()
		live := f.path == ev.Name
		f.mu.Unlock()
		// A write to the live file needs only a read; anything else (a
		// new file, a removal) may mean another session is live now.
		f.poke(!live || !ev.Has(fsnotify.Write))
	}
}

// watchSubagents watches a session's subagent folder where folders are
// watched; elsewhere the sweep and the main file's own events bring the
// follower round often enough.
func (e *Engine) watchSubagents(dir string) {
	if *e.cfg.WatchDirs {
		e.watch(dir)
	}
}

func (e *Engine) watch(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.watchLocked(path)
}

// unwatchLocked stops watching a transcript folder (and the files and
// subagent folders under it) once no followed workspace uses it.
func (e *Engine) unwatchLocked(projectDir string) {
	if e.watcher == nil || projectDir == "" {
		return
	}
	for _, f := range e.followers {
		if f.ws.ProjectDir == projectDir {
			return
		}
	}
	for p := range e.watched {
		if p == projectDir || strings.HasPrefix(p, projectDir+string(filepath.Separator)) {
			e.watcher.Remove(p)
			delete(e.watched, p)
		}
	}
}

func (e *Engine) watchLocked(path string) {
	if e.watcher == nil || path == "" || e.watched[path] {
		return
	}
	if err := e.watcher.Add(path); err != nil {
		return // not there yet: the sweep tries again when it appears
	}
	e.watched[path] = true
}

// Changes returns a channel that receives (coalesced) whenever the
// workspace list or a workspace's state changed.
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

// Info is a workspace as the API and the tray show it. Its Status is the
// most urgent of its sessions' (needs_input > error > working > idle);
// SessionID, Transcript, Version and PID are the active session's: the
// Conductor tab on screen, else the most recently active one.
type Info struct {
	discover.Workspace
	Active      bool
	Status      string // working / idle / needs_input / error
	Reason      string // why, for needs_input: permission_prompt, question, plan, …
	StatusSince time.Time
	SessionID   string
	Transcript  string
	LastEventID int64
	Malformed   int    // transcript lines skipped as not JSON
	Oversized   int    // transcript lines skipped as too long
	Version     string // the agent version writing the active session
	// Sessions are every session of the workspace, the active one first,
	// then by most recent activity.
	Sessions []SessionInfo
}

// SessionInfo is one agent session (a Conductor chat tab, or one claude /
// codex run) as the API and the tray show it.
type SessionInfo struct {
	SessionID   string // the agent's own id: Claude session uuid, Codex thread id
	ConductorID string // Conductor's sessions.id, "" outside Conductor
	Agent       string // claude, codex, cursor, acp
	Title       string // the tab's title
	Status      string // working / idle / needs_input / error
	Reason      string
	StatusSince time.Time
	Active      bool // Conductor's tab on screen
	Unread      int
	PID         int
	Model       string
	Version     string
	Transcript  string
	// Streamed is false for a session whose record the bridge cannot read
	// (an agent it has no parser for): listed with Conductor's status only.
	Streamed     bool
	LastEventID  int64     // the last event id this session put in the workspace's stream
	LastActivity time.Time // when its record last changed
}

// Workspaces returns every followed workspace, sorted by repo, name, directory.
func (e *Engine) Workspaces() []Info {
	e.mu.RLock()
	fs := make([]*follower, 0, len(e.followers))
	for _, f := range e.followers {
		fs = append(fs, f)
	}
	e.mu.RUnlock()
	out := make([]Info, 0, len(fs))
	for _, f := range fs {
		out = append(out, e.info(f))
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Repo != b.Repo {
			return a.Repo < b.Repo
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Directory < b.Directory
	})
	return out
}

// Workspace returns one workspace by id.
func (e *Engine) Workspace(id string) (Info, bool) {
	e.mu.RLock()
	f, ok := e.followers[id]
	e.mu.RUnlock()
	if !ok {
		return Info{}, false
	}
	return e.info(f), true
}

// Topic returns a followed workspace's stream.
func (e *Engine) Topic(id string) (*stream.Topic, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	f, ok := e.followers[id]
	if !ok {
		return nil, false
	}
	return f.topic, true
}

func (e *Engine) info(f *follower) Info {
	f.mu.Lock()
	in := Info{
		Workspace: f.ws, Status: f.status, StatusSince: f.since, Transcript: f.path,
		Malformed: f.malformed, Oversized: f.oversized, Version: f.version,
	}
	liveMod := f.liveMod
	f.mu.Unlock()
	if in.Transcript != "" {
		in.SessionID = sessionID(in.Transcript)
	}
	if in.Status == "" {
		in.Status = in.ConductorStatus
	}
	in.Active = in.PID != 0 || in.ConductorStatus == event.StateWorking ||
		in.Status == event.StateWorking || in.Status == event.StateNeedsInput ||
		(!liveMod.IsZero() && time.Since(liveMod) < e.cfg.ActiveWindow)
	in.LastEventID = f.topic.LastID()
	return in
}

func sessionID(path string) string {
	base := filepath.Base(path)
	return base[:len(base)-len(filepath.Ext(base))]
}

// run hands fn to a workspace's follower goroutine and waits for it, so
// hook-driven changes are ordered with the transcript's own events.
func (e *Engine) run(ctx context.Context, id string, fn func(f *follower)) bool {
	e.mu.RLock()
	f, ok := e.followers[id]
	e.mu.RUnlock()
	if !ok {
		return false
	}
	done := make(chan struct{})
	select {
	case f.do <- func() { fn(f); close(done) }:
	case <-f.ctx.Done(): // the workspace went away meanwhile
		return false
	case <-ctx.Done():
		return false
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
	return true
}

// NeedsInput marks a workspace's agent as waiting for the person (a
// permission prompt, an idle prompt) until it moves on.
func (e *Engine) NeedsInput(ctx context.Context, id, reason string) bool {
	return e.run(ctx, id, func(f *follower) { f.needsInput(reason) })
}

// TurnEnded tells a workspace's follower that the agent finished a turn.
func (e *Engine) TurnEnded(ctx context.Context, id string) bool {
	return e.run(ctx, id, func(f *follower) { f.turnEnded() })
}

// Relook makes a workspace look for its live session file again now: a
// hook said a session started or ended.
func (e *Engine) Relook(id string) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if f, ok := e.followers[id]; ok {
		f.poke(true)
	}
}

// Rescan scans for workspaces now, e.g. right after one was registered.
func (e *Engine) Rescan(ctx context.Context) { e.scan(ctx) }

// Hint adopts the workspace a hook call comes from when no scan has found
// it yet: a Claude Code session in cwd writing transcriptPath. Only a
// directory whose transcript lives in the watched projects folder is
// adopted, so a hook cannot make the bridge follow arbitrary paths.
func (e *Engine) Hint(ctx context.Context, cwd, transcriptPath string) (string, bool) {
	dir, err := filepath.EvalSymlinks(cwd)
	if err != nil || !filepath.IsAbs(dir) || !isDir(dir) || transcriptPath == "" {
		return "", false
	}
	// Only what Claude Code itself would write: the transcript's folder is
	// the encoding of this very directory, inside the projects folder.
	projDir := filepath.Dir(transcriptPath)
	if filepath.Dir(projDir) != filepath.Clean(e.cfg.ClaudeProjects) || filepath.Base(projDir) != discover.EncodeProjectDir(dir) || dir == "/" {
		return "", false
	}
	e.mu.Lock()
	e.hinted[dir] = discover.Workspace{
		ID: discover.PathID(dir), Name: filepath.Base(dir), Directory: dir,
		Source: discover.SourceClaude, ProjectDir: projDir,
	}
	e.mu.Unlock()
	e.scan(ctx)
	return e.WorkspaceFor(cwd, transcriptPath)
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// ClaudeVersion returns the Claude Code version writing a workspace's live
// session, "" if not known yet.
func (e *Engine) ClaudeVersion(id string) string {
	in, _ := e.Workspace(id)
	return in.Version
}

// Adopted reports whether a workspace is Conductor's or registered with
// the bridge (not a plain Claude Code project).
func (e *Engine) Adopted(id string) bool {
	in, ok := e.Workspace(id)
	return ok && in.Source != discover.SourceClaude
}

// WorkspaceFor finds the followed workspace a hook call comes from, by its
// working directory or else by its transcript's folder.
func (e *Engine) WorkspaceFor(cwd, transcriptPath string) (string, bool) {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	projDir := filepath.Dir(transcriptPath)
	e.mu.RLock()
	defer e.mu.RUnlock()
	byProject := ""
	for id, f := range e.followers {
		if cwd != "" && f.ws.Directory == cwd {
			return id, true
		}
		if transcriptPath != "" && f.ws.ProjectDir == projDir {
			byProject = id
		}
	}
	return byProject, byProject != ""
}
