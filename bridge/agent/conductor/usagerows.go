package conductor

import (
	"context"
	"encoding/json"
	"fmt"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/usage/driver"
)

// The rows a usage read asks for: those after the mark, by rowid (a
// range of the table's own b-tree: the few pages at its end, whatever
// indexes the schema has), and those up to the mark of the tabs counted
// since it (a JSON array of their ids).
const (
	rowsAfterMark  = "rowid > ? AND session_id IS NOT NULL ORDER BY rowid"
	rowsOfTabsUpTo = "rowid <= ? AND session_id IN (SELECT value FROM json_each(?)) ORDER BY rowid"
)

// tabReads is a usage read of the counted tabs' rows: each row, read in
// rowid order whatever its tab, goes to its tab's parser.
type tabReads struct {
	tabs    map[string]*tabRead // the tabs counted, by id
	line    []byte              // a row's line, for the parser
	scratch []event.Event       // a row's events
	failed  error               // a saved parser that did not load
}

// tabRead is one counted tab's rows read so far.
type tabRead struct {
	old  *driver.Place // where the earlier read left it (nil: a tab new since)
	p    *Parser       // nil until a row of an old tab comes
	ends []event.Event // the turn_complete events of its rows read
	last int64         // the last row read (0: none)
	n    int           // how many were read
}

// read reads, within d's transaction, every row after rowid mark (0:
// every row) and, before them, the rows up to it of the fresh tabs.
func (rs *tabReads) read(ctx context.Context, d *db, mark int64, fresh []string) error {
	if mark > 0 && len(fresh) > 0 {
		ids, err := json.Marshal(fresh)
		if err != nil {
			return fmt.Errorf("read conductor db %s: %w", d.path, err)
		}
		if err := d.each(ctx, rowsOfTabsUpTo, rs.row, mark, string(ids)); err != nil {
			return err
		}
	}
	if err := d.each(ctx, rowsAfterMark, rs.row, mark); err != nil {
		return err
	}
	return rs.failed
}

// row hands r to its tab's parser, if its tab is counted.
func (rs *tabReads) row(r *Row) {
	tr := rs.tabs[r.Session]
	if tr == nil || rs.failed != nil {
		return // a tab counted elsewhere, or none
	}
	if tr.p == nil { // a tab read before: its parser as that read left it
		var err error
		if tr.p, err = NewParser(tr.old.State); err != nil {
			rs.failed = driver.ErrNoResume
			return
		}
	}
	rs.line = r.AppendLine(rs.line[:0])
	rs.scratch, _ = tr.p.Line(rs.line, rs.scratch[:0]) // a row that is not JSON is skipped, as the streams skip it
	for _, e := range rs.scratch {
		if e.Type == event.TurnComplete { // all a Splice takes of a tab's events
			tr.ends = append(tr.ends, e)
		}
	}
	tr.last = r.RowID
	tr.n++
}
