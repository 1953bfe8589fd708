package opencode

import (
	"context"
	"fmt"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// OpenCode's history for bridge/usage: every session's turns in the
// event table, with the cost OpenCode put on each (the bridge's table
// prices only a turn OpenCode put none on).
//
// The database is one group, its files the database and its WAL: SQLite
// writes both in place (a commit appends frames to the WAL, a checkpoint
// copies them into the database and starts the WAL again from its
// header), so no offset says what is new, and the cache keeps the turns
// only while both files are as they were (device, inode, size, time and
// sampled bytes: the WAL's first 32 bytes are its header, whose salts
// change at every restart). Any commit changes one of them, and the
// whole table is read again (Whole).
var _ driver.Whole = (*Driver)(nil)

// UsageHome is the database.
func (a *Driver) UsageHome() string { return a.db }

// UsageGroups is the database and its WAL, when they are there.
func (a *Driver) UsageGroups() ([]driver.Group, error) { return driver.SQLiteGroups(a.db), nil }

// ReadUsage reads every session's rows through the streams' parser, in
// one read transaction: each turn_complete is a turn, in the session's
// folder. A subagent's session (OpenCode's task tool) has turns of its
// own, which its parent's do not include. A turn still open at the end
// counts as the streams end it, interrupted, with what it spent.
func (a *Driver) ReadUsage(g driver.Group, prices *price.Table, _ []string) ([]driver.Turn, error) {
	st := NewStore(g.Files[0])
	defer st.Close()
	var (
		turns []driver.Turn
		p     *Parser
		evs   []event.Event
	)
	end := func() {
		if p == nil {
			return
		}
		turns = driver.EndTurns(turns, p, evs, Agent, func() (string, string) { return p.Dir(), p.SessionID() })
		evs = evs[:0]
	}
	session := ""
	err := st.EachRow(context.Background(), func(r Row) {
		if p == nil || r.Session != session {
			end()
			session = r.Session
			p, _ = NewParser(nil)
			p.Price = prices.ModelCost
		}
		evs, _ = p.Line(r.Line(), evs) // a row that is not JSON is skipped, as the streams skip it
	})
	if err != nil {
		return nil, err
	}
	end()
	return turns, nil
}

// EachRow calls fn with every row of the event table, session by session,
// each in seq order, in one read transaction.
func (s *Store) EachRow(ctx context.Context, fn func(Row)) error {
	conn, err := s.open(ctx)
	if err != nil {
		return err
	}
	rs, err := conn.QueryContext(ctx, "SELECT aggregate_id, seq, type, data FROM event ORDER BY aggregate_id, seq")
	if err != nil {
		return s.fail(fmt.Errorf("opencode db %s: read events: %w", s.path, err))
	}
	defer rs.Close()
	var r Row
	for rs.Next() {
		if err := rs.Scan(&r.Session, &r.Seq, &r.Type, &r.Data); err != nil {
			return s.fail(fmt.Errorf("opencode db %s: read events: %w", s.path, err))
		}
		fn(r)
	}
	if err := rs.Err(); err != nil {
		return s.fail(fmt.Errorf("opencode db %s: read events: %w", s.path, err))
	}
	return nil
}
