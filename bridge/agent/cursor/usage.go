package cursor

import (
	"context"
	"fmt"
	"path/filepath"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// History is the SDK's stores under one home for bridge/usage (a
// driver.Whole): every store ~/.cursor/projects/*/sdk-agent-store/*/
// holds (StoreDir), each database with its WAL one group, read whole when
// either changed. Driver counts through it, as a driver.RunsOnly: these
// are the SDK's runs in plain folders; Conductor keeps its own SDK store
// elsewhere (its app-support folder), so its Cursor tabs are counted from
// Conductor's own record, as before.
type History struct {
	root string // ~/.cursor/projects
}

var _ driver.Whole = History{}

// NewHistory reads the stores of the user whose home is home.
func NewHistory(home string) History {
	return History{root: filepath.Join(home, ".cursor", "projects")}
}

// Name is the agent its turns carry.
func (History) Name() string { return Agent }

// UsageHome is the projects folder the stores are in.
func (h History) UsageHome() string { return h.root }

// UsageGroups is each store's database and its WAL.
func (h History) UsageGroups() ([]driver.Group, error) {
	dbs, err := filepath.Glob(filepath.Join(h.root, "*", "sdk-agent-store", "*", DBName))
	if err != nil {
		return nil, fmt.Errorf("cursor stores in %s: %w", h.root, err)
	}
	var gs []driver.Group
	for _, db := range dbs {
		gs = append(gs, driver.SQLiteGroups(db)...)
	}
	return gs, nil
}

// ReadUsage reads every turn of every agent of the store g is, in one
// read transaction, through the streams' parser: each run that ended is a
// turn, in the agent's workspace (workspace_ref); a run still open at the
// end counts as the streams end it, interrupted, with what it spent.
// Cost comes from prices alone (the store keeps none).
func (History) ReadUsage(g driver.Group, prices *price.Table, _ []string) ([]driver.Turn, error) {
	ctx := context.Background()
	st := NewStore(g.Files[0])
	defer st.Close()
	conn, _, err := st.Open(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		_ = st.Close()
		return nil, fmt.Errorf("cursor store %s: %w", st.Path(), err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK") //nolint:errcheck // a read: nothing to undo
	agents, err := st.Agents(ctx)
	if err != nil {
		return nil, err
	}
	var turns []driver.Turn
	for _, a := range agents {
		p := &Parser{Price: prices.ModelCost}
		var evs []event.Event
		var mark Mark
		for {
			rows, err := st.Rows(ctx, a.ID, mark, maxRows)
			if err != nil {
				return nil, err
			}
			for i := range rows {
				evs, _ = p.Line(rows[i].Line(), evs) // a row that is not JSON is skipped, as the streams skip it
			}
			evs = turnEnds(evs)
			if len(rows) < maxRows {
				break
			}
			mark = p.Mark()
		}
		turns = driver.EndTurns(turns, p, evs, Agent, func() (string, string) { return a.Workspace, a.ID })
	}
	return turns, nil
}

// turnEnds keeps evs' turn_complete events alone, all a turn is made of.
func turnEnds(evs []event.Event) []event.Event {
	kept := evs[:0]
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			kept = append(kept, e)
		}
	}
	return kept
}

var (
	_ driver.Whole    = (*Driver)(nil)
	_ driver.RunsOnly = (*Driver)(nil)
)

// UsageHome is the projects folder the stores are in.
func (d *Driver) UsageHome() string { return NewHistory(d.home).UsageHome() }

// UsageGroups is each store's database and its WAL.
func (d *Driver) UsageGroups() ([]driver.Group, error) { return NewHistory(d.home).UsageGroups() }

// ReadUsage reads every turn of the store g is (History.ReadUsage).
func (d *Driver) ReadUsage(g driver.Group, prices *price.Table, elsewhere []string) ([]driver.Turn, error) {
	return NewHistory(d.home).ReadUsage(g, prices, elsewhere)
}

// CountsNoTab: the stores read are the SDK's in plain folders, none of a
// Conductor tab (driver.RunsOnly).
func (*Driver) CountsNoTab() {}
