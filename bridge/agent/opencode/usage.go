package opencode

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/sqliteread"
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
// change at every restart). When a commit changed one of them, the rows
// written since the last read are read (Rows: see ResumeUsage), or the
// whole table when the earlier rows are not as they were.
var _ driver.Rows = (*Driver)(nil)

// UsageHome is the database.
func (a *Driver) UsageHome() string { return a.db }

// UsageGroups is the database and its WAL, when they are there.
func (a *Driver) UsageGroups() ([]driver.Group, error) { return driver.SQLiteGroups(a.db), nil }

// ReadUsage reads every session's rows through the streams' parser, in
// one read transaction: each turn_complete is a turn, in the session's
// folder. A subagent's session (OpenCode's task tool) has turns of its
// own, which its parent's do not include. A turn still open at the end
// counts as the streams end it, interrupted, with what it spent.
func (a *Driver) ReadUsage(g driver.Group, prices *price.Table, elsewhere []string) ([]driver.Turn, error) {
	turns, _, err := a.ResumeUsage(g, prices, elsewhere, nil, nil)
	return turns, err
}

// usageMark is where a read of the event table stopped (with each
// session's last seq, turns and parser: driver.SaveTable).
type usageMark struct{ Mark sqliteread.Mark }

// eventKey names an event row: its id (random, never given again).
const eventKey = "id"

// ResumeUsage is ReadUsage going on from an earlier read (driver.Rows):
// OpenCode writes each event row once, rowids in order, so the rows after
// the earlier read's last are the new ones, each session's after its
// last seq. The earlier rows must be there as they were (sqliteread.Mark:
// the same count up to the mark, the same row at it, the same schema),
// else driver.ErrNoResume.
func (a *Driver) ResumeUsage(g driver.Group, prices *price.Table, _ []string, saved []byte, was []driver.Turn) ([]driver.Turn, []byte, error) {
	var prev usageMark
	var places []driver.Place
	if saved != nil {
		var err error
		if places, err = driver.LoadTable(saved, &prev); err != nil {
			return nil, nil, err
		}
	}
	sp, err := driver.NewSplice(places, was)
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	st := NewStore(g.Files[0])
	defer st.Close()
	conn, err := st.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	// One read transaction: the mark is of the rows read.
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, nil, st.fail(fmt.Errorf("opencode db %s: %w", st.Path(), err))
	}
	defer conn.ExecContext(ctx, "ROLLBACK") //nolint:errcheck // a read: nothing to undo
	if saved != nil {
		if ok, err := prev.Mark.Holds(ctx, conn, "event", eventKey); err != nil || !ok {
			return nil, nil, cmp.Or(err, driver.ErrNoResume)
		}
	}
	mark, err := sqliteread.MarkOf(ctx, conn, "event", eventKey)
	if err != nil {
		return nil, nil, st.fail(fmt.Errorf("opencode db %s: %w", st.Path(), err))
	}
	var (
		p       *Parser
		old     *driver.Place
		evs     []event.Event
		session string
		last    int64
		failed  error
	)
	end := func() {
		if p == nil || failed != nil {
			return
		}
		failed = sp.Session(session, "", last, old, p, evs, Agent, func() (string, string) { return p.Dir(), p.SessionID() })
		evs = evs[:0]
	}
	err = st.eachRow(ctx, prev.Mark.Rowid, func(r Row) {
		if p == nil || r.Session != session {
			end()
			session = r.Session
			old = sp.Upto(session)
			var state []byte
			if old != nil {
				state = old.State
				if r.Seq <= old.Last {
					failed = cmp.Or(failed, driver.ErrNoResume) // a row written in its session's past
				}
			}
			var err error
			if p, err = NewParser(state); err != nil {
				failed = cmp.Or(failed, driver.ErrNoResume)
			}
			p.Price = prices.ModelCost
		}
		last = r.Seq
		evs, _ = p.Line(r.Line(), evs) // a row that is not JSON is skipped, as the streams skip it
	})
	if err != nil {
		return nil, nil, err
	}
	end()
	if failed != nil {
		return nil, nil, failed
	}
	turns, places := sp.Done()
	next, err := driver.SaveTable(usageMark{Mark: mark}, places)
	return turns, next, err
}

// eachRow calls fn with every row of the event table after rowid after
// (0: every row), session by session, each in seq order, within the
// caller's read transaction.
func (s *Store) eachRow(ctx context.Context, after int64, fn func(Row)) error {
	conn, err := s.open(ctx)
	if err != nil {
		return err
	}
	if after <= 0 {
		return s.scanRows(ctx, conn, "SELECT aggregate_id, seq, type, data FROM event ORDER BY aggregate_id, seq", fn)
	}
	// The rows after a mark by rowid (the table's own order: a few pages
	// at its end), put in session order here: asked in that order, SQLite
	// walks the whole (aggregate_id, seq) index to find them.
	var rows []Row
	err = s.scanRows(ctx, conn, "SELECT aggregate_id, seq, type, data FROM event WHERE rowid > ? ORDER BY rowid", func(r Row) { rows = append(rows, r) }, after)
	if err != nil {
		return err
	}
	slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Or(strings.Compare(a.Session, b.Session), cmp.Compare(a.Seq, b.Seq)) })
	for _, r := range rows {
		fn(r)
	}
	return nil
}

// scanRows calls fn with each row query selects.
func (s *Store) scanRows(ctx context.Context, conn *sql.Conn, query string, fn func(Row), args ...any) error {
	rs, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return s.fail(fmt.Errorf("opencode db %s: read events: %w", s.Path(), err))
	}
	defer rs.Close()
	var r Row
	for rs.Next() {
		if err := rs.Scan(&r.Session, &r.Seq, &r.Type, &r.Data); err != nil {
			return s.fail(fmt.Errorf("opencode db %s: read events: %w", s.Path(), err))
		}
		fn(r)
	}
	if err := rs.Err(); err != nil {
		return s.fail(fmt.Errorf("opencode db %s: read events: %w", s.Path(), err))
	}
	return nil
}
