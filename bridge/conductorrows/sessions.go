package conductorrows

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// agentSessionColumn is the sessions column where Conductor keeps the
// agent's own session id, whatever the agent (named for the first one).
const agentSessionColumn = "claude_session_id"

// Session is one row of the sessions table (a chat tab), NULLs as "" and 0.
type Session struct {
	ID, WorkspaceID string
	AgentSessionID  string // the agent's own session id, whatever the agent
	AgentType       string
	Title, Status   string
	Model           string
	Updated         string // updated_at as written: see ParseTime
	Hidden, Unread  int64  // is_hidden, unread_count
	Archived        bool   // remote_archived_at is set
}

// querySessions reads the sessions table. Missing columns leave their
// fields empty; without sessions.workspace_id no row can be placed and
// none is read. Newer builds (0.87–0.90) set remote_archived_at on a tab
// archived in the cloud: it is no live tab.
func querySessions(ctx context.Context, db Queryer) ([]Session, error) {
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
	var out []Session
	for rows.Next() {
		var id, wsID, agentID, agentType, title, status, model, updated, archived sql.NullString
		var hidden, unread sql.NullInt64
		if err := rows.Scan(&id, &wsID, &agentID, &agentType, &title, &status, &model, &hidden, &unread, &updated, &archived); err != nil {
			return nil, fmt.Errorf("query sessions: %w", err)
		}
		out = append(out, Session{ID: id.String, WorkspaceID: wsID.String, AgentSessionID: agentID.String, AgentType: agentType.String,
			Title: title.String, Status: status.String, Model: model.String, Updated: updated.String,
			Hidden: hidden.Int64, Unread: unread.Int64, Archived: archived.String != ""})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query sessions: %w", err)
	}
	return out, nil
}

// TabAgent is what a reader of every tab's rows needs of a sessions row:
// the tab's id, its workspace's and its agent_type.
type TabAgent struct{ ID, WorkspaceID, AgentType string }

// ReadTabAgents reads every tab's TabAgent, by id, in one query of those
// three columns after the probe of the table's: cheap enough for every
// warm usage read. An older build with no agent_type column ran Claude
// only: "" there, as for a NULL. A sessions table without id or
// workspace_id is an error (the query's).
func ReadTabAgents(ctx context.Context, db Queryer) ([]TabAgent, error) {
	cols, err := tableColumns(ctx, db, "sessions")
	if err != nil {
		return nil, err
	}
	agent := "NULL"
	if cols["agent_type"] {
		agent = "agent_type"
	}
	rows, err := db.QueryContext(ctx, "SELECT id, workspace_id, "+agent+" FROM sessions ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	defer rows.Close()
	var out []TabAgent
	for rows.Next() {
		var id, ws, ag sql.NullString
		if err := rows.Scan(&id, &ws, &ag); err != nil {
			return nil, fmt.Errorf("read sessions: %w", err)
		}
		out = append(out, TabAgent{ID: id.String, WorkspaceID: ws.String, AgentType: ag.String})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read sessions: %w", err)
	}
	return out, nil
}

// ParseTime reads both timestamp formats Conductor writes in one
// column: 'YYYY-MM-DD HH:MM:SS' (UTC) and ISO 'YYYY-MM-DDTHH:MM:SS.sssZ'.
// Anything else is the zero time.
func ParseTime(s string) time.Time {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t
		}
	}
	return time.Time{}
}
