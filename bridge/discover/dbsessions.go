package discover

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// agentSessionColumn is the sessions column where Conductor keeps the
// agent's own session id, whatever the agent (named for the first one).
const agentSessionColumn = "claude_session_id"

// sessionRow is one row of the sessions table, NULLs as "" and 0.
type sessionRow struct {
	id, wsID, agentID, agentType, title, status, model, updated string
	hidden, unread                                              int64
	archived                                                    bool // remote_archived_at is set
}

// querySessions reads the sessions table. Missing columns leave their
// fields empty; without sessions.workspace_id no row can be placed and
// none is read. Newer builds (0.87–0.90) set remote_archived_at on a tab
// archived in the cloud: it is no live tab.
func querySessions(ctx context.Context, db queryer) ([]sessionRow, error) {
	cols, err := tableColumns(ctx, db, "sessions")
	if err != nil || !cols["id"] || !cols["workspace_id"] {
		return nil, err
	}
	opt := func(c string) string {
		if cols[c] {
			return c
		}
		return "NULL"
	}
	q := "SELECT id, workspace_id, " + strings.Join([]string{opt(agentSessionColumn), opt("agent_type"), opt("title"),
		opt("status"), opt("model"), opt("is_hidden"), opt("unread_count"), opt("updated_at"), opt("remote_archived_at")}, ", ") + " FROM sessions"
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("query sessions: %w", err)
	}
	defer rows.Close()
	var out []sessionRow
	for rows.Next() {
		var id, wsID, agentID, agentType, title, status, model, updated, archived sql.NullString
		var hidden, unread sql.NullInt64
		if err := rows.Scan(&id, &wsID, &agentID, &agentType, &title, &status, &model, &hidden, &unread, &updated, &archived); err != nil {
			return nil, fmt.Errorf("query sessions: %w", err)
		}
		out = append(out, sessionRow{id.String, wsID.String, agentID.String, agentType.String, title.String, status.String,
			model.String, updated.String, hidden.Int64, unread.Int64, archived.String != ""})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query sessions: %w", err)
	}
	return out, nil
}

// placeSessions fills each workspace's Sessions from the session rows:
// every row (chat tab) of a live workspace that is neither hidden nor
// archived in the cloud. A row's agent session id is the first of
// sessions.claude_session_id (Conductor's column for every agent's
// session id) and sessions.id that is set and can name a file; the
// agents then confirm it by its record (fillTabs).
func placeSessions(rows []sessionRow, ws []Workspace, agents []Agent) {
	at := make(map[string]int, len(ws))
	for i, w := range ws {
		if !w.Archived {
			at[w.ID] = i
		}
	}
	for _, row := range rows {
		i, ok := at[row.wsID]
		if !ok || row.id == "" || row.hidden != 0 || row.archived {
			continue
		}
		w := &ws[i]
		s := Session{
			ConductorID: row.id, Agent: agentType(agents, row.agentType), Title: row.title, Model: row.model,
			ConductorStatus: row.status, Active: row.id == w.ConductorSession, Unread: int(row.unread),
			UpdatedAt: ParseConductorTime(row.updated),
		}
		for _, id := range []string{row.agentID, row.id} {
			if pathElement(id) {
				s.ID = id
				break
			}
		}
		w.Sessions = append(w.Sessions, s)
	}
}

// ParseConductorTime reads both timestamp formats Conductor writes in one
// column: 'YYYY-MM-DD HH:MM:SS' (UTC) and ISO 'YYYY-MM-DDTHH:MM:SS.sssZ'.
// Anything else is the zero time.
func ParseConductorTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t
		}
	}
	return time.Time{}
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
