package discover

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// readSessions fills each workspace's Sessions from the sessions table:
// every non-hidden row (chat tab) of a live workspace. A row's agent
// session id is claude_session_id, else sessions.id, whichever has a
// transcript at <projects>/<enc>/<id>.jsonl; without one, the first of
// them that is set. Missing columns leave their fields empty; without
// sessions.workspace_id no row can be placed and none is read.
func readSessions(ctx context.Context, db *sql.DB, ws []Workspace, projects string) error {
	cols, err := tableColumns(ctx, db, "sessions")
	if err != nil || !cols["id"] || !cols["workspace_id"] {
		return err
	}
	opt := func(c string) string {
		if cols[c] {
			return c
		}
		return "NULL"
	}
	q := "SELECT id, workspace_id, " + strings.Join([]string{opt("claude_session_id"), opt("agent_type"), opt("title"),
		opt("status"), opt("model"), opt("is_hidden"), opt("unread_count"), opt("updated_at")}, ", ") + " FROM sessions"
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("query sessions: %w", err)
	}
	defer rows.Close()
	at := make(map[string]int, len(ws))
	for i, w := range ws {
		if !w.Archived {
			at[w.ID] = i
		}
	}
	for rows.Next() {
		var id, wsID, claudeID, agentType, title, status, model, updated sql.NullString
		var hidden, unread sql.NullInt64
		if err := rows.Scan(&id, &wsID, &claudeID, &agentType, &title, &status, &model, &hidden, &unread, &updated); err != nil {
			return fmt.Errorf("query sessions: %w", err)
		}
		i, ok := at[wsID.String]
		if !ok || id.String == "" || hidden.Int64 != 0 {
			continue
		}
		w := &ws[i]
		s := Session{
			ConductorID: id.String, Agent: NormalizeAgent(agentType.String), Title: title.String, Model: model.String,
			ConductorStatus: status.String, Active: id.String == w.ConductorSession, Unread: int(unread.Int64),
			UpdatedAt: ParseConductorTime(updated.String),
		}
		s.ID, s.Transcript = confirmSession(projects, w.Directory, s.Agent, claudeID.String, id.String)
		w.Sessions = append(w.Sessions, s)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query sessions: %w", err)
	}
	return nil
}

// confirmSession picks a Claude tab's session id by its transcript on
// disk: candidates in order, the first whose <projects>/<enc>/<id>.jsonl
// is a regular file wins; with none, the first candidate that is set.
func confirmSession(projects, dir, agentName string, candidates ...string) (id, transcript string) {
	for _, c := range candidates {
		if c == "" || !pathElement(c) {
			continue
		}
		if id == "" {
			id = c
		}
		if projects == "" || agentName != AgentClaude {
			continue
		}
		p := filepath.Join(projects, EncodeProjectDir(dir), c+".jsonl")
		if isRegular(p) {
			return c, p
		}
	}
	return id, ""
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

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
