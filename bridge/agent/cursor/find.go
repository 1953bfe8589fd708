package cursor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"conductorbridge/bridge/agent"
)

// Runs calls run for each SDK agent of every store under the projects
// folder updated at or after since: its workspace (workspace_ref), its
// id, and its record's name. A store whose files were not written since
// is not opened.
func (d *Driver) Runs(since time.Time, run func(dir, id, record string)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	dbs, err := filepath.Glob(filepath.Join(d.home, ".cursor", "projects", "*", "sdk-agent-store", "*", DBName))
	if err != nil {
		return fmt.Errorf("cursor stores of %s: %w", d.home, err)
	}
	found := map[string]string{}
	var errs []error
	for _, db := range dbs {
		if !writtenSince(db, since) {
			continue
		}
		st := NewStore(db)
		agents, err := st.Agents(context.Background())
		st.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, a := range agents {
			if updated, err := time.Parse(time.RFC3339Nano, a.Updated); err != nil || updated.Before(since) {
				continue
			}
			found[a.ID] = db
			run(a.Workspace, a.ID, agent.RecordName(db, a.ID))
		}
	}
	d.stores = found
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}

// writtenSince reports whether the database or its WAL was written at or
// after since.
func writtenSince(db string, since time.Time) bool {
	for _, f := range []string{db, db + "-wal"} {
		if fi, err := os.Stat(f); err == nil && !fi.ModTime().Before(since) {
			return true
		}
	}
	return false
}

// FindRows is an SDK agent's record: the store the last Runs found it in,
// else its folder's (StoreDir), when that store has the agent. A
// Conductor tab has none here (Driver).
func (d *Driver) FindRows(ctx context.Context, s agent.RowSession) (agent.RowRecord, error) {
	if s.Tab != "" || !strings.HasPrefix(s.ID, "agent-") {
		return nil, nil
	}
	d.mu.Lock()
	db, ok := d.stores[s.ID]
	d.mu.Unlock()
	if !ok {
		db = filepath.Join(StoreDir(d.home, s.Dir), DBName)
	}
	if fi, err := os.Stat(db); err != nil || !fi.Mode().IsRegular() {
		return nil, nil
	}
	st := NewStore(db)
	agents, err := st.Agents(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	for _, a := range agents {
		if a.ID == s.ID {
			return &record{agent.StoreRecord[*Store]{Store: st, Session: s.ID}}, nil
		}
	}
	st.Close()
	return nil, nil
}

// record is one SDK agent's rows of a store (its Session the agent's id).
type record struct{ agent.StoreRecord[*Store] }

// Read hands over the rows after p's mark.
func (r *record) Read(ctx context.Context, p agent.Parser, limit int, fn func(line []byte)) (bool, error) {
	cp, ok := p.(*Parser)
	if !ok {
		return false, fmt.Errorf("cursor record %s: parser %T is not Cursor's", r.Name(), p)
	}
	rows, err := r.Store.Rows(ctx, r.Session, cp.Mark(), limit)
	if err != nil {
		return false, err
	}
	for i := range rows {
		fn(rows[i].Line())
	}
	return len(rows) >= min(limit, maxRows), nil
}
