package discover

import (
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Agent is an agent whose sessions discovery finds beside Conductor's
// tabs and folders. Each agent's driver is one (bridge/agent/<name>); app
// lists them. What a driver can find is an optional interface below,
// found by type assertion. A Scanner calls them under its lock, one scan
// at a time, so a driver may remember what it read between scans.
type Agent interface {
	// Name is the agent as sessions.agent_type names it.
	Name() string
}

// TabRecords is an Agent that finds a Conductor tab's record by an id of
// the tab (the agent's session id, which Conductor keeps in
// sessions.claude_session_id whatever the agent, else the row's own id),
// however old: the record's path, "" when it has none (yet).
type TabRecords interface {
	Agent
	TabRecord(dir, id string) string
}

// Runs is an Agent whose plain runs (outside Conductor) are sessions:
// Runs calls run for each one whose record was written at or after
// since, with its working directory as the record says it, its session
// id and its record.
type Runs interface {
	Agent
	Runs(since time.Time, run func(dir, id, record string)) error
}

// Projects is an Agent that keeps its records in one folder per working
// directory under one root (Claude Code's projects folder), each a
// JSON-lines file whose first "cwd" names its directory: discovery lists
// the directories the newest records of each folder name, as workspaces
// whose Source is the agent's name, and gives every workspace its folder
// (Workspace.ProjectDir).
type Projects interface {
	Agent
	// RecordsRoot is the root of the folders, "" when there is none.
	RecordsRoot() string
	// ProjectFolder is the name the agent gives the folder of the
	// directory dir (absolute, symlink-resolved) today.
	ProjectFolder(dir string) string
	// RecordCwd is the working directory the record names: the first
	// "cwd" in its first CwdLimit bytes, "" when they name none.
	RecordCwd(record string) (string, error)
	// CwdLimit is how far into a record RecordCwd looks: a record this
	// long that names no cwd never will.
	CwdLimit() int64
}

// Aliased is an Agent that Conductor's rows also name otherwise
// (sessions.agent_type as older builds wrote it): Aliases are those
// values, as written; "" among them makes it the agent of a row that
// names none.
type Aliased interface {
	Agent
	Aliases() []string
}

// agentType is the agent a sessions.agent_type value names: an agent's
// own name or one of its aliases (Aliased), else the value as it is
// (lower-cased), so a new agent type is listed under its own name.
func agentType(agents []Agent, s string) string {
	for _, a := range agents {
		if al, ok := a.(Aliased); ok && slices.Contains(al.Aliases(), s) {
			return a.Name()
		}
	}
	return lower(s)
}

// projectsOf is the first agent of agents that keeps a folder per
// directory under a root, nil if none does.
func projectsOf(agents []Agent) Projects {
	for _, a := range agents {
		if p, ok := a.(Projects); ok && p.RecordsRoot() != "" {
			return p
		}
	}
	return nil
}

// fillTabs gives each Conductor tab of an agent that finds tabs' records
// (TabRecords) its record: by the id the row names, else the row's own.
func fillTabs(agents []Agent, ws []Workspace) {
	for _, a := range agents {
		tabs, ok := a.(TabRecords)
		if !ok {
			continue
		}
		for i := range ws {
			for j := range ws[i].Sessions {
				s := &ws[i].Sessions[j]
				if s.Agent != a.Name() || s.Transcript != "" {
					continue
				}
				for k, id := range []string{s.ID, s.ConductorID} {
					if k == 1 && id == s.ID {
						break // the row names no agent session: its id was tried already
					}
					if id == "" {
						continue
					}
					if p := tabs.TabRecord(ws[i].Directory, id); p != "" {
						s.ID, s.Transcript = id, p
						break
					}
				}
			}
		}
	}
}

// recentRuns lists an agent's plain runs written since then as
// workspaces, one per working directory (symlinks resolved, so a run in
// a branch-named link joins its worktree). merge folds each into the
// workspace of the same directory when another source has one; a
// workspace found only so has the agent's name as its Source.
func recentRuns(a Runs, since time.Time) ([]Workspace, error) {
	var out []Workspace
	at := make(map[string]int)
	err := a.Runs(since, func(dir, id, record string) {
		if !filepath.IsAbs(dir) {
			return // a record with no usable cwd places nothing
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return // the directory is gone: not a workspace
		}
		i, ok := at[real]
		if !ok {
			i = len(out)
			at[real] = i
			out = append(out, Workspace{Name: filepath.Base(real), Directory: real, Source: a.Name()})
		}
		out[i].Sessions = append(out[i].Sessions, Session{ID: id, Agent: a.Name(), Transcript: record})
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		// By id, not by last write: two sessions taking turns must not
		// look like a change to every scan.
		slices.SortFunc(out[i].Sessions, func(a, b Session) int { return strings.Compare(a.ID, b.ID) })
	}
	return out, nil
}

// mergeSessions adds to dst the sessions of src it does not have, by id:
// a Conductor tab also listed as a recent run stays one session, and
// takes the run's file if it had none.
func mergeSessions(dst []Session, src []Session) []Session {
	for _, s := range src {
		found := false
		for i := range dst {
			if d := &dst[i]; d.ID == s.ID && d.Agent == s.Agent {
				found = true
				if d.Transcript == "" {
					d.Transcript = s.Transcript
				}
				break
			}
		}
		if !found {
			dst = append(dst, s)
		}
	}
	return dst
}
