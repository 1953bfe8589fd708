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

// tabRecord reads one tab's rows, after its parser's cursor.
type tabRecord struct {
	db  db
	tab string
	out []Row
}

func (r *tabRecord) Name() string { return r.db.path + "#" + r.tab }
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
	rows, err := r.db.rows(ctx, "session_id = ? AND rowid > ?", limit, r.out[:0], r.tab, after)
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
