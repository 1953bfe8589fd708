package engine

import (
	"cmp"
	"slices"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

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
	Browser     bool   // the workspace's gstack browse server is followed now
	// Sessions are every session of the workspace, the active one first,
	// then by most recent activity. Like the embedded Workspace's, the
	// slice is the engine's snapshot, shared and never changed: read it,
	// copy it to change it (listing a thousand workspaces copied it for
	// every call).
	Sessions []SessionInfo
}

// SessionInfo is one agent session (a Conductor chat tab, or one claude /
// codex run) as the API and the tray show it.
type SessionInfo struct {
	SessionID   string // the agent's own id: Claude session uuid, Codex thread id
	ConductorID string // Conductor's sessions.id, "" outside Conductor
	Agent       string // Conductor's sessions.agent_type: claude, codex, cursor, acp, …
	// Label is how a person reads the agent ("Claude", "Codex",
	// "Cursor"): its driver's Label, else its name capitalised.
	Label string
	// Source is what the session is streamed from: the name of the
	// driver (Config.Agents) reading its record, "" when the bridge reads
	// none (Streamed is false).
	Source      string
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
	Streamed bool
	// MessagesBlocked says why messages cannot reach the session, "" when
	// the record gives no reason (its hooks, or Codex's route, may still).
	MessagesBlocked string
	LastEventID     int64     // the last event id this session put in the workspace's stream
	LastActivity    time.Time // when its record last changed (or its last line was read, a moment after: see read)
}

// Label is how a person reads an agent's name: its driver's Label ("" is
// the default agent, as events carry it), else the name capitalised.
func (e *Engine) Label(agentName string) string { return e.agents.label(agentName) }

// urgency orders states for a workspace's summary: the most urgent wins.
func urgency(state string) int {
	switch state {
	case event.StateNeedsInput:
		return 3
	case event.StateError:
		return 2
	case event.StateWorking:
		return 1
	}
	return 0
}

// Workspaces returns every followed workspace, sorted by repo, name, directory.
func (e *Engine) Workspaces() []Info {
	type ws struct {
		w *workspace
		s *snapshot
	}
	e.mu.RLock()
	list := make([]ws, 0, len(e.workspaces))
	for _, w := range e.workspaces {
		list = append(list, ws{w, w.snap.Load()})
	}
	e.mu.RUnlock()
	// Sorted before the Infos are made: an Info is large, and at a
	// thousand workspaces moving them about was most of the sort.
	slices.SortFunc(list, func(a, b ws) int {
		x, y := &a.s.ws, &b.s.ws
		return cmp.Or(cmp.Compare(x.Repo, y.Repo), cmp.Compare(x.Name, y.Name), cmp.Compare(x.Directory, y.Directory))
	})
	out := make([]Info, len(list))
	for i, it := range list {
		out[i] = e.infoOf(it.w, it.s)
	}
	return out
}

// followed is the workspace followed under id.
func (e *Engine) followed(id string) (*workspace, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	w, ok := e.workspaces[id]
	return w, ok
}

// Workspace returns one workspace by id.
func (e *Engine) Workspace(id string) (Info, bool) {
	w, ok := e.followed(id)
	if !ok {
		return Info{}, false
	}
	return e.info(w), true
}

// Topic returns a followed workspace's stream.
func (e *Engine) Topic(id string) (*stream.Topic, bool) {
	w, ok := e.followed(id)
	if !ok {
		return nil, false
	}
	return w.topic, true
}

func (e *Engine) info(w *workspace) Info { return e.infoOf(w, w.snap.Load()) }

func (e *Engine) infoOf(w *workspace, s *snapshot) Info {
	in := Info{Workspace: s.ws, Malformed: s.malformed, Oversized: s.oversized, LastEventID: w.topic.LastID(),
		Sessions: s.sessions, Browser: e.browseLive(w.id)}
	in.Status = event.StateIdle
	if in.ConductorStatus != "" && len(in.Sessions) == 0 {
		in.Status, in.Reason = conductorState(in.ConductorStatus)
	}
	recent := time.Now().Add(-e.cfg.ActiveWindow)
	for i, si := range in.Sessions {
		if i == 0 { // the active tab, else the most recently active session
			in.SessionID, in.Transcript, in.Version = si.SessionID, si.Transcript, si.Version
			in.StatusSince = si.StatusSince
			if si.PID != 0 {
				in.PID = si.PID
			}
		}
		if urgency(si.Status) > urgency(in.Status) {
			in.Status, in.Reason, in.StatusSince = si.Status, si.Reason, si.StatusSince
		}
		if si.PID != 0 || si.Status == event.StateWorking || si.Status == event.StateNeedsInput || si.LastActivity.After(recent) {
			in.Active = true
		}
	}
	in.Active = in.Active || in.PID != 0
	return in
}
