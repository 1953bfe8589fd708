package discover

import "time"

// lower is s in lower case (ASCII).
func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Session is one agent session of a workspace: a Conductor chat tab, or one
// `claude` / `codex` run in a plain project. A workspace holds one or many.
type Session struct {
	// ID is the agent's own session id: Claude Code's session uuid (the
	// transcript's base name) or Codex's thread id. For a Conductor row it
	// is claude_session_id, else sessions.id, when a transcript confirms
	// it; else the row's best guess (claude_session_id, else sessions.id).
	ID string
	// ConductorID is sessions.id for a Conductor tab ("" elsewhere). It is
	// what conductor://workspace?id=…&session=… takes.
	ConductorID string
	Agent       string // the agent's name (sessions.agent_type, see agentType)
	Title       string // sessions.title: the tab's title
	Model       string // sessions.model alias ("opus", "gpt-5.5"), "" if unknown

	// Transcript is the session's record on disk when found: Claude's
	// <projects>/<enc>/<id>.jsonl, Codex's rollout file. "" when the agent
	// is one the bridge cannot read, or no file exists yet.
	Transcript string

	// From Conductor's database: the raw sessions.status ("working",
	// "idle", "error", "needs_user_input", "needs_plan_response"), whether
	// it is the tab on screen (workspaces.active_session_id), and
	// sessions.unread_count.
	ConductorStatus string
	Active          bool
	Unread          int

	PID int // a live agent process running this session, 0 if none found
	// StdioPrompts: that process was started with --permission-prompt-tool
	// stdio (as Conductor starts its tabs), so permission requests go to
	// its parent over stdio rather than to the person.
	StdioPrompts bool
	UpdatedAt    time.Time // sessions.updated_at, else the transcript's mtime
}
