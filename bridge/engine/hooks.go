package engine

import (
	"context"
	"path/filepath"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// Call says where a hook call comes from, as its input and environment
// tell: the agent's session id and transcript, its working directory,
// Conductor's CONDUCTOR_WORKSPACE_PATH when the agent runs under Conductor,
// and the agent's pid when the relay found it among its ancestors.
type Call struct {
	SessionID      string
	TranscriptPath string
	Cwd            string
	WorkspacePath  string
	PID            int
}

// Place finds the followed workspace a hook call comes from: by the
// session it names (a session the bridge follows), then by Conductor's
// workspace path, then by working directory, then by transcript folder.
func (e *Engine) Place(c Call) (string, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if c.SessionID != "" {
		for id, w := range e.workspaces {
			for _, si := range w.snap.Load().sessions {
				if si.SessionID == c.SessionID && si.Streamed {
					return id, true
				}
			}
		}
	}
	for _, dir := range []string{c.WorkspacePath, c.Cwd} {
		if dir == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		for id, w := range e.workspaces {
			if w.snap.Load().ws.Directory == dir {
				return id, true
			}
		}
	}
	if c.TranscriptPath != "" {
		if ids := e.byProject[filepath.Dir(c.TranscriptPath)]; len(ids) > 0 {
			return ids[0], true
		}
	}
	return "", false
}

// WorkspaceFor finds the followed workspace of a working directory or,
// failing that, of a transcript's folder.
func (e *Engine) WorkspaceFor(cwd, transcriptPath string) (string, bool) {
	return e.Place(Call{Cwd: cwd, TranscriptPath: transcriptPath})
}

// do hands fn to a workspace's work and waits for it, so hook-driven
// changes are ordered with the transcripts' own events.
func (e *Engine) do(ctx context.Context, id string, fn func(w *workspace)) bool {
	w, ok := e.followed(id)
	if !ok {
		return false
	}
	done := make(chan struct{})
	if !w.enqueue(func() { fn(w); close(done) }) {
		return false // the workspace went away meanwhile
	}
	select {
	case <-done:
	case <-w.ctx.Done():
		return false
	case <-ctx.Done():
	}
	return true
}

// session returns the tail of a session, adopting it first when a hook
// names a transcript of this workspace's folder that is not followed yet
// (a session that just started). "" means the workspace's active session.
func (w *workspace) session(id, transcriptPath string) *tail {
	w.sync()
	if id == "" {
		if s := w.snap.Load().sessions; len(s) > 0 {
			id = s[0].SessionID
		}
	}
	if t := w.tails[id]; t != nil {
		return t
	}
	for _, t := range w.tails {
		if transcriptPath != "" && t.reader.Path == transcriptPath {
			return t // a session id the transcript does not go by (a resumed 1.0 session)
		}
	}
	if transcriptPath != "" && w.ws.ProjectDir != "" && filepath.Dir(transcriptPath) == w.ws.ProjectDir &&
		sessionID(transcriptPath) == id {
		if w.hinted == nil {
			w.hinted = make(map[string]string)
		}
		w.hinted[id] = transcriptPath
		w.relook.Store(true)
		w.sync()
		if t := w.tails[id]; t != nil {
			return t
		}
	}
	// A call the bridge cannot place in a session: the workspace's active
	// session is the best guess, rather than dropping what the hook said.
	if s := w.snap.Load().sessions; len(s) > 0 {
		return w.tails[s[0].SessionID]
	}
	return nil
}

// NeedsInput marks a session's agent as waiting for the person (a
// permission prompt, an idle prompt) until it moves on.
func (e *Engine) NeedsInput(ctx context.Context, ws string, c Call, reason string) bool {
	if c.SessionID != "" && e.dated(c.TranscriptPath) && !e.follows(c.SessionID) {
		// A session in dated folders (Codex's) that began since the last
		// scan (its first approval can come a second after it started,
		// before the watcher's rescan): scan now, or the wait lands on
		// another tab.
		e.scan(ctx)
		if id, ok := e.Place(c); ok {
			ws = id
		}
	}
	return e.do(ctx, ws, func(w *workspace) {
		t := w.session(c.SessionID, c.TranscriptPath)
		if t == nil {
			return
		}
		if reason == event.ReasonPermission && launchedWithStdioPrompts(t) {
			return // Conductor answers it over stdio, often by itself: not by itself a reason to call the person
		}
		if a, ok := t.parser.(agent.Asker); ok {
			a.Ask(reason) // Codex: the parser knows when the record moves on
		} else {
			t.needs = reason
		}
		w.publish(t.statusChange(w.evs[:0], false))
	})
}

// HooksCall notes that a session's hooks call the bridge: its Stop hook
// will say whether a turn goes on, so the session's turn ends wait for it
// (agent.StopHooked). A session not followed yet is marked when it is.
func (e *Engine) HooksCall(ws string, c Call) {
	if c.SessionID == "" {
		return
	}
	w, ok := e.followed(ws)
	if !ok {
		return
	}
	w.enqueue(func() {
		if w.stopHooked[c.SessionID] {
			return
		}
		if w.stopHooked == nil {
			w.stopHooked = make(map[string]bool)
		}
		w.stopHooked[c.SessionID] = true
		if t := w.tails[c.SessionID]; t != nil {
			w.holdEnds(t)
		}
	})
}

// holdEnds makes t's turn ends wait for its Stop hook, if its hooks call in.
func (w *workspace) holdEnds(t *tail) {
	if h, ok := t.parser.(agent.StopHooked); ok && w.stopHooked[t.id] {
		h.HookedStops()
	}
}

// follows reports whether some workspace streams the session.
func (e *Engine) follows(session string) bool {
	_, ok := e.Place(Call{SessionID: session})
	return ok
}

// TurnEnded is the Stop hook's word that a session's agent finished its
// turn. For versions that write no stop reason it ends the turn now
// instead of after a quiet spell. It never ends a turn whose record says
// more is coming (a tool call unanswered): the hook can run before the
// last lines of the turn reach the transcript.
func (e *Engine) TurnEnded(ctx context.Context, ws string, c Call) bool {
	return e.do(ctx, ws, func(w *workspace) {
		w.lookBeforeEnds()
		t := w.session(c.SessionID, c.TranscriptPath)
		if t == nil {
			return
		}
		evs := w.evs[:0]
		n := len(evs)
		if h, ok := t.parser.(agent.StopHooked); ok {
			evs = h.StopEnded(evs)
		} else {
			evs = t.parser.Quiet(evs)
		}
		t.stamp(evs, n)
		w.publish(t.statusChange(evs, false))
		w.armQuiet() // a turn the word could not end yet is no longer held for it
	})
}

// TurnGoesOn is the Stop hook's word that the agent goes on with its turn
// (the hook handed a message over). Claude Code records that after the
// hook has answered, and its next Stop hook can call before the record
// shows it: that hook's word that the turn is over must not end the turn
// at the reply this hook went on from (agent.StopHooked).
func (e *Engine) TurnGoesOn(ctx context.Context, ws string, c Call) bool {
	return e.do(ctx, ws, func(w *workspace) {
		if t := w.session(c.SessionID, c.TranscriptPath); t != nil {
			if h, ok := t.parser.(agent.StopHooked); ok {
				h.StopGoesOn()
			}
		}
	})
}

// active tells the sweep an agent is at work (a hook called in), so a
// sweep backed off while all was idle comes back to its base rate.
func (e *Engine) active() {
	select {
	case e.nudge <- struct{}{}:
	default:
	}
}

// Relook makes a workspace list its sessions again now: a hook said a
// session started or ended. A transcript the call names is adopted.
func (e *Engine) Relook(ws string, c Call) {
	e.active()
	w, ok := e.followed(ws)
	if !ok {
		return
	}
	if c.SessionID != "" && c.TranscriptPath != "" {
		go e.do(context.Background(), ws, func(w *workspace) { w.session(c.SessionID, c.TranscriptPath) })
		return
	}
	w.poke(true)
}

// AgentVersion returns the agent version writing a session ("" for the
// workspace's active one), "" if not known yet.
func (e *Engine) AgentVersion(ws, session string) string {
	in, ok := e.Workspace(ws)
	if !ok {
		return ""
	}
	if session == "" {
		return in.Version
	}
	for _, si := range in.Sessions {
		if si.SessionID == session {
			return si.Version
		}
	}
	return ""
}

// Session returns one session of a workspace.
func (e *Engine) Session(ws, session string) (SessionInfo, bool) {
	in, ok := e.Workspace(ws)
	if !ok {
		return SessionInfo{}, false
	}
	for _, si := range in.Sessions {
		if si.SessionID == session || (si.ConductorID != "" && si.ConductorID == session) {
			return si, true
		}
	}
	return SessionInfo{}, false
}

// Adopted reports whether a workspace is Conductor's or registered with
// the bridge (not a plain Claude Code project).
func (e *Engine) Adopted(id string) bool {
	in, ok := e.Workspace(id)
	return ok && in.Source != e.projectsSource
}

// dated reports whether record is one the agent writing dated folders
// (agent.Dated) owns.
func (e *Engine) dated(record string) bool {
	_, ok := e.agents.of(record).(agent.Dated)
	return ok
}

// Rescan scans for workspaces now, e.g. right after one was registered.
func (e *Engine) Rescan(ctx context.Context) { e.scan(ctx) }

// Hint adopts the workspace a hook call comes from when no scan has found
// it yet: a Claude Code session in cwd writing transcriptPath, or a Codex
// session writing a rollout under Codex's sessions folder. Only a
// directory whose transcript lives in the watched projects folder is
// adopted, so a hook cannot make the bridge follow arbitrary paths.
func (e *Engine) Hint(ctx context.Context, cwd, transcriptPath string) (string, bool) {
	if root := e.datedRoot; root != "" && transcriptPath != "" && e.dated(transcriptPath) &&
		within(filepath.Clean(transcriptPath), root) {
		// A session in dated folders (Codex's) that began since the last
		// scan, in a folder no workspace has yet: its first approval can
		// come a second after its record appeared, before the watcher's
		// rescan. The scan finds it (a plain session's cwd becomes a
		// workspace); nothing outside the agent's own root is looked at.
		e.active()
		e.scan(ctx)
		return e.WorkspaceFor(cwd, transcriptPath)
	}
	dir, err := filepath.EvalSymlinks(cwd)
	if err != nil || !filepath.IsAbs(dir) || !isDir(dir) || transcriptPath == "" {
		return "", false
	}
	// Only what the agent itself would write: for Claude Code, the
	// transcript's folder is the encoding of this very directory, inside
	// the projects folder.
	a, ok := e.agents.of(transcriptPath).(agent.Hooked)
	if !ok {
		return "", false
	}
	projDir, ok := a.RecordFolder(dir, transcriptPath)
	if !ok {
		return "", false
	}
	e.active()
	e.mu.Lock()
	e.hinted[dir] = discover.Workspace{
		ID: discover.PathID(dir), Name: filepath.Base(dir), DisplayName: filepath.Base(dir), Directory: dir,
		Source: e.agents.of(transcriptPath).Name(), ProjectDir: projDir,
	}
	e.mu.Unlock()
	e.scan(ctx)
	return e.WorkspaceFor(cwd, transcriptPath)
}

// launchedWithStdioPrompts reports whether a session's permission requests
// go to Conductor over stdio (--permission-prompt-tool stdio), where a
// permission_prompt Notification is weak evidence that the person is
// needed (REALITY.md). The scan reads it from the session's process
// arguments (the hook input carries no launch flags); a session whose
// process was not found is treated as asking the person, since a missed
// question costs more than a spare note.
func launchedWithStdioPrompts(t *tail) bool {
	return t.meta.StdioPrompts
}
