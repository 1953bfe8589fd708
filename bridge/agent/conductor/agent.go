package conductor

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/price"
)

// Agent is the driver of Conductor's own record: the engine's source for a
// tab whose agent has no reader of its own (agent.Fallback). DB is
// Conductor's database; Root is Conductor's folder, where usage finds a
// tab's workspace folder ("": the database's paths as they are).
type Agent struct{ DB, Root string }

// Name is the source's name in listings; no tab's agent_type is it.
func (Agent) Name() string { return "conductor" }

// Label is how a person reads it.
func (Agent) Label() string { return "Conductor" }

// Owns is false: no record file is Conductor's.
func (Agent) Owns(string) bool { return false }

// NewParser resumes a tab's parser; a tab's cost comes from its result
// frames, so prices are not asked.
func (Agent) NewParser(saved json.RawMessage, _ *price.Table) (agent.Parser, error) {
	return NewParser(saved)
}

// Fallback marks the source of any tab.
func (Agent) Fallback() {}

// FindRows is a Conductor tab's record: its rows of session_messages.
// Whether the tab has any yet is not asked (a tab nothing was sent in
// streams from its first row).
func (a Agent) FindRows(_ context.Context, s agent.RowSession) (agent.RowRecord, error) {
	if a.DB == "" || s.Tab == "" {
		return nil, nil
	}
	path := a.DB
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return &tabRecord{db: dbAt(path), tab: s.Tab}, nil
}

// A tab's rows after its cursor are found in one of two ways. The newer
// shape's index on session_id goes on with role and created_at, not
// rowid: through it, SQLite reads every row the tab ever had and sorts
// those after the cursor (480 µs a read for a tab of 5,000 rows). A tab
// streaming live has its cursor near the table's end, and the rows after
// it, of every tab, are a handful, read by rowid (9 µs); one far behind
// (caught up after a restart) is read through the index.
const (
	tabRows   = "session_id = ? AND rowid > ?"
	rowsAfter = "+session_id = ? AND rowid > ?"
	nearEnd   = 4096 // rows after the cursor, at most, read by rowid
)

// tabRecord reads one tab's rows, after its parser's cursor.
type tabRecord struct {
	db  db
	tab string
	out []Row
}

func (r *tabRecord) Name() string { return agent.RecordName(r.db.path, r.tab) }
func (r *tabRecord) DB() string   { return r.db.path }
func (r *tabRecord) Close() error { r.db.close(); return nil }

// Read hands over the tab's rows after p's cursor. Should Conductor's
// rowids have moved (a VACUUM), the cursor's row is found again by its id.
func (r *tabRecord) Read(ctx context.Context, p agent.Parser, limit int, fn func(line []byte)) (bool, error) {
	cp, ok := p.(*Parser)
	if !ok {
		return false, fmt.Errorf("conductor record %s: parser %T is not Conductor's", r.Name(), p)
	}
	if err := r.db.open(ctx); err != nil {
		return false, err
	}
	cur := cp.Cursor()
	after := cur.Row
	if cur.Key != "" && r.db.hasID {
		n, err := r.db.locate(ctx, cur.Key)
		if err != nil {
			r.db.close()
			return false, err
		}
		if n > 0 {
			after = n
		}
	}
	end, err := r.db.end(ctx)
	if err != nil {
		r.db.close()
		return false, err
	}
	where := tabRows // through the tab's index: its whole history
	if end-after <= nearEnd {
		where = rowsAfter // the few rows after the cursor, of every tab
	}
	rows, err := r.db.rows(ctx, where, limit, r.out[:0], r.tab, after)
	if err != nil {
		r.db.close()
		return false, err
	}
	var line []byte
	for i := range rows {
		line = rows[i].AppendLine(line[:0])
		fn(line)
	}
	clear(rows)
	r.out = rows[:0]
	return len(rows) >= limit, nil
}
