package engine

import (
	"context"
	"slices"
	"sync"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/sqlitewake"
)

// Row records (agent.RowRecord) are sessions kept as logs of rows in a
// SQLite database. A tail reads one as it reads a file, through its
// record instead of its file reader; the parser's state is its resume
// point. Each database read is watched by one goroutine (sqlitewake: its
// WAL's writes, then PRAGMA data_version), which pokes the workspaces
// reading it when a commit lands.

// maxRows bounds the rows read into one batch of events, as backlogBudget
// bounds a file's bytes.
const maxRows = 512

// rowDBs are the databases row records are read from, each with the
// workspaces reading it.
type rowDBs struct {
	mu  sync.Mutex
	dbs map[string]*rowDB
}

type rowDB struct {
	readers map[*workspace]int
	names   map[string]map[*workspace]int // RowRecord.Name → its readers
	changes agent.ChangedRows             // the first source read from it that tells which records changed
	stop    context.CancelFunc
}

// followRows notes that w reads rec, a record of src's, watching its
// database while any workspace does.
func (e *Engine) followRows(w *workspace, src agent.Rows, rec agent.RowRecord) {
	e.rows.mu.Lock()
	defer e.rows.mu.Unlock()
	if e.rows.dbs == nil {
		e.rows.dbs = map[string]*rowDB{}
	}
	db := rec.DB()
	d := e.rows.dbs[db]
	if d == nil {
		ctx, cancel := context.WithCancel(e.ctx)
		d = &rowDB{readers: map[*workspace]int{}, names: map[string]map[*workspace]int{}, stop: cancel}
		e.rows.dbs[db] = d
		go e.watchRows(ctx, db)
	}
	d.readers[w]++
	if d.names[rec.Name()] == nil {
		d.names[rec.Name()] = map[*workspace]int{}
	}
	d.names[rec.Name()][w]++
	if c, ok := src.(agent.ChangedRows); ok && d.changes == nil {
		d.changes = c
	}
}

// unfollowRows undoes one followRows.
func (e *Engine) unfollowRows(w *workspace, rec agent.RowRecord) {
	e.rows.mu.Lock()
	defer e.rows.mu.Unlock()
	d := e.rows.dbs[rec.DB()]
	if d == nil {
		return
	}
	if d.readers[w]--; d.readers[w] <= 0 {
		delete(d.readers, w)
	}
	if r := d.names[rec.Name()]; r != nil {
		if r[w]--; r[w] <= 0 {
			delete(r, w)
		}
		if len(r) == 0 {
			delete(d.names, rec.Name())
		}
	}
	if len(d.readers) == 0 {
		d.stop()
		delete(e.rows.dbs, rec.DB())
	}
}

// watchRows pokes db's readers whenever a commit lands in it: those of
// the records that gained rows, when the database's source can tell
// (agent.ChangedRows), else all of them.
func (e *Engine) watchRows(ctx context.Context, db string) {
	v := sqlitewake.NewVersion(db)
	defer v.Close()
	var changes agent.RowChanges
	defer func() {
		if changes != nil {
			changes.Close()
		}
	}()
	warned := ""
	_ = sqlitewake.Run(ctx, db, sqlitewake.Options{Logf: func(f string, a ...any) { e.log.Debug().Msgf(f, a...) }}, func(ctx context.Context) bool {
		changed, err := v.Changed(ctx)
		if err != nil {
			if ctx.Err() == nil && err.Error() != warned {
				warned = err.Error()
				e.log.Warn().Err(err).Str("db", db).Msg("watch session rows")
			}
			return false
		}
		warned = ""
		if changed {
			e.rows.mu.Lock()
			if d := e.rows.dbs[db]; d != nil && changes == nil && d.changes != nil {
				changes = d.changes.RowChanges(db)
			}
			e.rows.mu.Unlock()
			names, all := []string(nil), true
			if changes != nil {
				var err error
				if names, all, err = changes.Since(ctx); err != nil && ctx.Err() == nil {
					e.log.Debug().Err(err).Str("db", db).Msg("which session rows changed")
				}
			}
			for _, w := range e.rowReaders(db, names, all) {
				w.poke(false)
			}
		}
		return changed
	})
}

// rowReaders are the workspaces reading db: all of them, or those
// reading the records named.
func (e *Engine) rowReaders(db string, names []string, all bool) []*workspace {
	e.rows.mu.Lock()
	defer e.rows.mu.Unlock()
	d := e.rows.dbs[db]
	if d == nil {
		return nil
	}
	var ws []*workspace
	if all {
		for w := range d.readers {
			ws = append(ws, w)
		}
		return ws
	}
	for _, n := range names {
		for w := range d.names[n] {
			if !slices.Contains(ws, w) {
				ws = append(ws, w)
			}
		}
	}
	return ws
}

// rowSources are the agents keeping records as rows, the fallback last.
func (as agents) rowSources() (own []agent.Rows, fallback agent.Rows) {
	for _, a := range as {
		switch r := a.(type) {
		case agent.Fallback:
			if fallback == nil {
				fallback = r
			}
		case agent.Rows:
			own = append(own, r)
		}
	}
	return own, fallback
}

// findRows is the row record of a session discovery listed with no
// record file: its agent's own (OpenCode's), else Conductor's own for a
// tab whose agent the bridge has no file reader for. A Claude or Codex
// tab keeps its native reader and waits for its file. A session read from
// Conductor's rows is given its own record once that is found
// (handover.go).
func (w *workspace) findRows(m discover.Session) (agent.Rows, agent.RowRecord) {
	if t := w.tails[m.ID]; t != nil && t.rows != nil {
		if src, rec := w.betterRows(t, m); rec != nil {
			return src, rec
		}
		return w.eng.agents.named(t.source).(agent.Rows), t.rows
	}
	if src, rec := w.ownRows(m); rec != nil {
		return src, rec
	}
	_, fallback := w.eng.agents.rowSources()
	if fallback == nil || m.ConductorID == "" {
		return nil, nil
	}
	if a := w.eng.agents.named(m.Agent); a != nil {
		if _, ok := a.(agent.Rows); !ok {
			return nil, nil // an agent read from files: its own reader
		}
	}
	if rec := w.recordOf(fallback, m); rec != nil {
		return fallback, rec
	}
	return nil, nil
}

// attachRows makes t read rec, watching its database.
func (w *workspace) attachRows(t *tail, rec agent.RowRecord) {
	t.rows = rec
	t.reader = linefile.Reader{Path: rec.Name()}
	src, _ := w.eng.agents.named(t.source).(agent.Rows)
	w.eng.followRows(w, src, rec)
}

// detachRows lets t's record go.
func (w *workspace) detachRows(t *tail) {
	if t.rows == nil {
		return
	}
	w.eng.unfollowRows(w, t.rows)
	t.rows.Close()
	t.rows = nil
}

// readRows hands the rows t's record gained to its parser, a batch at
// most, as read does a file's lines.
func (w *workspace) readRows(t *tail, evs *[]event.Event) (linefile.ReadResult, error) {
	var bad, lines int
	out := *evs
	more, err := t.rows.Read(w.ctx, t.parser, maxRows, func(line []byte) {
		lines++
		out = w.feed(t, line, out, &bad)
	})
	*evs = out
	if err != nil {
		w.warnOnce("read", "read session rows", err)
	}
	if bad > 0 {
		w.eng.log.Warn().Str("workspace", w.id).Str("record", t.rows.Name()).Int("malformed", bad).Msg("skipped session rows")
	}
	t.malformed += bad
	if lines > 0 {
		t.liveMod = w.readAt
	}
	return linefile.ReadResult{More: more && err == nil, Lines: lines}, err
}

// startRows makes the tail of a session whose record is rows, resuming
// it where it was left if it was followed before, else from its first
// row.
func (w *workspace) startRows(id string, wt wanted) *tail {
	var t *tail
	if tc, ok := w.retired[wt.path]; ok && tc.Source == wt.src.Name() {
		delete(w.retired, wt.path)
		t = w.resume(id, tc)
	}
	if t == nil {
		p, err := wt.src.NewParser(nil, w.eng.cfg.Prices)
		if err != nil {
			w.warnOnce("parser", "start session", err)
			return nil
		}
		t = &tail{id: id, agent: cmpOr(wt.meta.Agent, wt.src.Name()), parser: p}
		w.eng.bind(t)
		t.source = wt.src.Name()
	}
	t.meta = wt.meta
	w.attachRows(t, wt.rows)
	return t
}

// resumeRows finds again, at a restart, the record of rows a journaled
// session was read from, and reports whether it did. One not found (yet)
// is kept with where it was read up to, to resume when it is found.
func (w *workspace) resumeRows(id string, tc tailMark) {
	for _, m := range w.ws.Sessions {
		if m.ID != id {
			continue
		}
		// The record it was read from, even where another is found now:
		// the listing hands it over from where it stands.
		src, _ := w.eng.agents.named(tc.Source).(agent.Rows)
		var rec agent.RowRecord
		if src != nil {
			rec = w.recordOf(src, m)
		}
		if rec != nil && rec.Name() == tc.Path {
			if t := w.resume(id, tc); t != nil {
				t.meta = m
				w.attachRows(t, rec)
				w.holdEnds(t)
				w.tails[id] = t
				return
			}
		}
		if rec != nil {
			rec.Close()
		}
		break
	}
	if w.retired == nil {
		w.retired = make(map[string]tailMark)
	}
	tc.Left = time.Now()
	w.retired[tc.Path] = tc
}
