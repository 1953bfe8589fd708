package conductor

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"conductorbridge/bridge/conductorrows"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/sqliteread"
	"conductorbridge/bridge/usage/driver"
)

// Conductor's own record for bridge/usage: the turns of every tab whose
// agent no other reader counts (a Cursor tab, an unknown agent_type),
// from its rows of session_messages through the streams' parser: each
// result frame ends a turn with the cost and tokens Conductor recorded.
// The database is one group, its files the database and its WAL, cached
// as OpenCode's is (the rows written since read when either changed, the
// whole table when the earlier rows are not as they were).
var _ driver.Rows = Agent{}

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
// turns are in its workspace's folder, where Conductor placed it even
// when the folder is gone ("" for a cloud workspace, or one the database
// cannot place).
func (a Agent) ReadUsage(g driver.Group, prices *price.Table, elsewhere []string) ([]driver.Turn, error) {
	turns, _, err := a.ResumeUsage(g, prices, elsewhere, nil, nil)
	return turns, err
}

// usageMark is where a read of session_messages stopped, and the agents
// counted elsewhere then (with each tab's last rowid, turns and parser:
// driver.SaveTable).
type usageMark struct {
	Mark      sqliteread.Mark
	Elsewhere []string
}

// ResumeUsage is ReadUsage going on from an earlier read (driver.Rows):
// Conductor writes each session_messages row once, rowids in order, so
// the rows after the earlier read's last are the new ones, read in one
// pass by rowid and each handed to its tab's parser (tabReads); a tab
// counted since (new, or its agent now one counted here) is read from
// its first row. The earlier rows must be there as they were
// (sqliteread.Mark), the same agents counted elsewhere, and each tab read
// before of the same agent and in the same folder, else
// driver.ErrNoResume.
func (a Agent) ResumeUsage(g driver.Group, _ *price.Table, elsewhere []string, saved []byte, was []driver.Turn) ([]driver.Turn, []byte, error) {
	var prev usageMark
	var places []driver.Place
	if saved != nil {
		var err error
		if places, err = driver.LoadTable(saved, &prev); err != nil || !slices.Equal(prev.Elsewhere, elsewhere) {
			return nil, nil, driver.ErrNoResume
		}
	}
	sp, err := driver.NewSplice(places, was)
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	path := g.Files[0]
	d := dbAt(path)
	defer d.close()
	if err := d.open(ctx); err != nil {
		return nil, nil, err
	}
	// One read transaction: the mark is of the rows read.
	if _, err := d.conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, nil, fmt.Errorf("read conductor db %s: %w", path, err)
	}
	defer d.conn.ExecContext(ctx, "ROLLBACK") //nolint:errcheck // a read: nothing to undo
	key := "ifnull(quote(" + d.idCol() + "), '') || ':' || ifnull(session_id, '') || ':' || ifnull(length(content), '')"
	if saved != nil {
		if ok, err := prev.Mark.Holds(ctx, d.conn, "session_messages", key); err != nil || !ok {
			return nil, nil, cmp.Or(err, driver.ErrNoResume)
		}
	}
	mark, err := sqliteread.MarkOf(ctx, d.conn, "session_messages", key)
	if err != nil {
		return nil, nil, fmt.Errorf("read conductor db %s: %w", path, err)
	}
	dirs := map[string]string{} // each workspace's folder, by id
	if r, err := discover.ConductorWorkspaces(ctx, d.conn, a.Root); err == nil {
		for _, w := range r.Workspaces {
			dirs[w.ID] = w.Directory
		}
		for _, w := range r.NotLocal {
			if w.Why == discover.NotLocalNoDirectory {
				dirs[w.ID] = w.Directory // gone: its turns are still in its folder, named as before
			}
		}
	}
	tabs, err := conductorrows.ReadTabAgents(ctx, d.conn)
	if err != nil {
		return nil, nil, fmt.Errorf("read conductor db %s: %w", path, err)
	}
	counted := map[string]string{} // the tabs counted here, by id: their key
	for _, t := range tabs {
		if t.AgentType != "" && !slices.ContainsFunc(elsewhere, func(s string) bool { return strings.EqualFold(s, t.AgentType) }) {
			counted[t.ID] = strings.ToLower(t.AgentType) + "\x00" + dirs[t.WorkspaceID]
		}
	}
	rs := tabReads{tabs: make(map[string]*tabRead, len(counted))}
	for i := range places {
		p := &places[i]
		if k, ok := counted[p.ID]; !ok || k != p.Key {
			return nil, nil, driver.ErrNoResume // another agent, another folder, or gone
		}
		rs.tabs[p.ID] = &tabRead{old: p}
	}
	var fresh []string // the tabs counted now and not then: every row of theirs is read
	for _, t := range tabs {
		if _, ok := counted[t.ID]; ok && rs.tabs[t.ID] == nil {
			p, _ := NewParser(nil)
			rs.tabs[t.ID] = &tabRead{p: p}
			fresh = append(fresh, t.ID)
		}
	}
	if err := rs.read(ctx, &d, prev.Mark.Rowid, fresh); err != nil {
		return nil, nil, err
	}
	for _, t := range tabs {
		k, ok := counted[t.ID]
		if !ok {
			continue
		}
		tr := rs.tabs[t.ID]
		old := sp.Upto(t.ID)
		if old != nil && tr.n == 0 {
			continue // as it was: Done or the next tab's Upto takes it
		}
		agent := strings.ToLower(t.AgentType)
		if err := sp.Session(t.ID, k, tr.last, old, tr.p, tr.ends, agent, func() (string, string) { return dirs[t.WorkspaceID], t.ID }); err != nil {
			return nil, nil, err
		}
	}
	turns, next := sp.Done()
	state, err := driver.SaveTable(usageMark{Mark: mark, Elsewhere: elsewhere}, next)
	return turns, state, err
}
