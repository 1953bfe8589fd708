package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/price"
)

// Driver is OpenCode's driver: Conductor's "acp" tabs, and OpenCode run in
// a plain folder, read from the event table of its database
// (agent.Rows). Make it with NewDriver, or as the bridge does: a zero
// Driver, its flag declared (Flags) and then Resolve'd.
type Driver struct {
	db string
	mu sync.Mutex
	st *Store // for finding sessions, kept open between scans
}

// NewDriver reads the sessions of the database at db (DefaultDB).
func NewDriver(db string) *Driver {
	if abs, err := filepath.Abs(db); err == nil {
		db = abs
	}
	return &Driver{db: db, st: NewStore(db)}
}

// Name is Conductor's agent_type for OpenCode tabs (`opencode acp`).
func (*Driver) Name() string { return Agent }

// Label is how a person reads it.
func (*Driver) Label() string { return "OpenCode" }

// Owns is false: OpenCode writes no record file.
func (*Driver) Owns(string) bool { return false }

// NewParser resumes a session's parser; OpenCode prices its own turns.
func (*Driver) NewParser(saved json.RawMessage, _ *price.Table) (agent.Parser, error) {
	return NewParser(saved)
}

// FindRows is a session's record: by OpenCode's own id (which Conductor
// keeps in sessions.claude_session_id, and a plain run names), else the
// newest session of the tab's folder.
func (a *Driver) FindRows(ctx context.Context, s agent.RowSession) (agent.RowRecord, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.st.Exists() {
		return nil, nil
	}
	id := s.ID
	if !IsSessionID(id) {
		id = ""
	}
	ss, ok, err := a.st.Tab(ctx, id, s.Dir)
	if err != nil || !ok {
		return nil, err
	}
	return &record{agent.StoreRecord[*Store]{Store: NewStore(a.db), Session: ss.ID}}, nil
}

// Runs calls run for each session (not a subagent's) updated at or after
// since: OpenCode run in a plain folder. Its record is the name FindRows
// gives it.
func (a *Driver) Runs(since time.Time, run func(dir, id, record string)) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.st.Exists() {
		return nil
	}
	list, err := a.st.Recent(context.Background(), since)
	if err != nil {
		return err
	}
	for _, s := range list {
		run(s.Dir, s.ID, agent.RecordName(a.db, s.ID))
	}
	return nil
}

// record is one session's rows of the event table.
type record struct{ agent.StoreRecord[*Store] }

// Read hands over the rows after p's next seq.
func (r *record) Read(ctx context.Context, p agent.Parser, limit int, fn func(line []byte)) (bool, error) {
	op, ok := p.(*Parser)
	if !ok {
		return false, fmt.Errorf("opencode record %s: parser %T is not OpenCode's", r.Name(), p)
	}
	rows, err := r.Store.Rows(ctx, r.Session, op.Next()-1, limit)
	if err != nil {
		return false, err
	}
	for i := range rows {
		fn(rows[i].Line())
	}
	return len(rows) >= min(limit, maxRows), nil
}

// TakesMessages: a session read from OpenCode's rows takes messages by
// `opencode run --session` (Pusher).
func (*Driver) TakesMessages() {}
