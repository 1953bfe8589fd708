// Package discover finds the workspaces an agent can run in, from its
// sources (DESIGN.md, "Data sources"): Conductor's database, Conductor's
// folders, worktrees registered with the bridge, and what each agent's
// driver finds of its own (the folders of its records, its plain runs).
// It merges them into one list keyed by directory.
package discover

import "time"

// Where a workspace was found. When one directory is found by several
// sources, the first in this order wins (it knows the most about it); a
// workspace an agent's driver found (Projects, Runs) has the agent's name
// as its Source, and comes after these.
const (
	SourceConductorDB     = "conductor-db"
	SourceConductorFolder = "conductor-folder"
	SourceRegistered      = "registered"
)

// Workspace is one directory an agent works in.
type Workspace struct {
	ID        string // Conductor's id where known, else PathID(Directory)
	Name      string // Conductor's directory_name, else the directory's base name
	Repo      string // repository name where known
	Branch    string // git branch where known
	Directory string // absolute, symlink-resolved
	Source    string // one of the Source* constants, or an agent's name
	Archived  bool

	// DisplayName is the name a person sees: workspace_name, else pr_title,
	// else the branch, else the codename (Name).
	DisplayName string
	// Workflow is Conductor's sidebar group (manual_status, else
	// derived_status: backlog / in-progress / in-review / done /
	// canceled). It says nothing about the agent; never use it as status.
	Workflow string

	// Sessions are the workspace's agent sessions: every non-hidden
	// Conductor tab, or every transcript written within the active window
	// for plain projects and registered worktrees. Discovery fills what it
	// knows; the engine follows each one that has a readable Transcript.
	Sessions []Session

	// From Conductor's database, when it has them: the active tab's.
	ConductorStatus  string // sessions.status of the active session (raw)
	ConductorSession string // active tab's sessions.id

	// ProjectDir is the folder of Directory's records of the agent that
	// keeps one folder per directory (Projects: Claude Code's
	// <projects>/<encoded directory>), whether or not it exists yet.
	ProjectDir string

	PID int // a live agent process whose cwd is Directory, 0 if none found

	SeenAt time.Time // when this scan found it
}
