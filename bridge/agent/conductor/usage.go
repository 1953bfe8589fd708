package conductor

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// Conductor's own record for bridge/usage: the turns of every tab whose
// agent no other reader counts (a Cursor tab, an unknown agent_type),
// from its rows of session_messages through the streams' parser: each
// result frame ends a turn with the cost and tokens Conductor recorded.
// The database is one group, its files the database and its WAL, cached
// as OpenCode's is (read whole when either changed).
var _ driver.Whole = Agent{}

// UsageHome is the database, and Conductor's folder its workspaces'
// folders are found under.
func (a Agent) UsageHome() string { return a.DB + "\n" + a.Root }

// UsageGroups is the database and its WAL, when they are there.
func (a Agent) UsageGroups() ([]driver.Group, error) {
	if a.DB == "" {
		return nil, nil
	}
	return driver.SQLiteGroups(a.DB), nil
}

// ReadUsage reads the rows of every tab whose agent_type is none of
// elsewhere (an empty one is Claude's, the only agent of older builds),
// hidden and archived tabs included: what they spent was spent. A tab's
// turns are in its workspace's folder ("" when Conductor's database has
// no folder on disk for it).
func (a Agent) ReadUsage(g driver.Group, _ *price.Table, elsewhere []string) ([]driver.Turn, error) {
	ctx := context.Background()
	path := g.Files[0]
	dirs := map[string]string{}
	if ws, _, err := discover.ReadConductorDB(ctx, path, a.Root); err == nil {
		for _, w := range ws {
			dirs[w.ID] = w.Directory
		}
	}
	d := dbAt(path)
	defer d.close()
	if err := d.open(ctx); err != nil {
		return nil, err
	}
	tabs, err := d.tabs(ctx)
	if err != nil {
		return nil, err
	}
	var turns []driver.Turn
	var evs []event.Event
	var rows []Row
	var line []byte
	for _, t := range tabs {
		if t.agent == "" || slices.ContainsFunc(elsewhere, func(s string) bool { return strings.EqualFold(s, t.agent) }) {
			continue
		}
		p, _ := NewParser(nil)
		for after := int64(0); ; {
			if rows, err = d.rows(ctx, "session_id = ? AND rowid > ?", 512, rows[:0], t.id, after); err != nil {
				return nil, err
			}
			for i := range rows {
				line = rows[i].AppendLine(line[:0])
				evs, _ = p.Line(line, evs) // a row that is not JSON is skipped, as the streams skip it
				after = rows[i].RowID
			}
			if len(rows) < 512 {
				break
			}
		}
		turns = driver.EndTurns(turns, p, evs, strings.ToLower(t.agent), func() (string, string) { return dirs[t.workspace], t.id })
		evs = evs[:0]
	}
	return turns, nil
}

// tab is one row of sessions: a chat tab.
type tab struct{ id, workspace, agent string }

// tabs lists every tab with its workspace and agent_type (an older build
// with no agent_type column ran Claude only: "").
func (d *db) tabs(ctx context.Context) ([]tab, error) {
	agent := "NULL"
	var n int
	if err := d.conn.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'agent_type'").Scan(&n); err != nil {
		return nil, fmt.Errorf("read conductor db %s: sessions: %w", d.path, err)
	}
	if n > 0 {
		agent = "agent_type"
	}
	rs, err := d.conn.QueryContext(ctx, "SELECT id, workspace_id, "+agent+" FROM sessions ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("read conductor db %s: sessions: %w", d.path, err)
	}
	defer rs.Close()
	var out []tab
	for rs.Next() {
		var id, ws, ag sql.NullString
		if err := rs.Scan(&id, &ws, &ag); err != nil {
			return nil, fmt.Errorf("read conductor db %s: sessions: %w", d.path, err)
		}
		out = append(out, tab{id: id.String, workspace: ws.String, agent: ag.String})
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read conductor db %s: sessions: %w", d.path, err)
	}
	return out, nil
}
