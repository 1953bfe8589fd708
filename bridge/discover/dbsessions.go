package discover

import (
	"path/filepath"

	"conductorbridge/bridge/conductorrows"
)

// placeSessions fills each workspace's Sessions from the session rows:
// every row (chat tab) of a live workspace that is neither hidden nor
// archived in the cloud. A row's agent session id is the first of
// sessions.claude_session_id (Conductor's column for every agent's
// session id) and sessions.id that is set and can name a file; the
// agents then confirm it by its record (fillTabs).
func placeSessions(rows []conductorrows.Session, ws []Workspace, agents []Agent) {
	at := make(map[string]int, len(ws))
	for i, w := range ws {
		if !w.Archived {
			at[w.ID] = i
		}
	}
	for _, row := range rows {
		i, ok := at[row.WorkspaceID]
		if !ok || row.ID == "" || row.Hidden != 0 || row.Archived {
			continue
		}
		w := &ws[i]
		s := Session{
			ConductorID: row.ID, Agent: agentType(agents, row.AgentType), Title: row.Title, Model: row.Model,
			ConductorStatus: row.Status, Active: row.ID == w.ConductorSession, Unread: int(row.Unread),
			UpdatedAt: conductorrows.ParseTime(row.Updated),
		}
		for _, id := range []string{row.AgentSessionID, row.ID} {
			if pathElement(id) {
				s.ID = id
				break
			}
		}
		w.Sessions = append(w.Sessions, s)
	}
}

// directoryOf is where a database row's worktree is: workspace_path when
// it exists on disk (a relocated root, a repo kept anywhere), else the
// path computed under the Conductor root, else the legacy
// <repo root>/.conductor/<name> of repos added before 0.25; computed when
// none exists (the row is then not local).
func directoryOf(wsPath, computed, repoRoot, dirName string) string {
	if filepath.IsAbs(wsPath) && isDir(wsPath) {
		return filepath.Clean(wsPath)
	}
	if isDir(computed) {
		return computed
	}
	if filepath.IsAbs(repoRoot) && pathElement(dirName) {
		if legacy := filepath.Join(repoRoot, ".conductor", dirName); isDir(legacy) {
			return legacy
		}
	}
	return computed
}
