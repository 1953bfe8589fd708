package engine

import (
	"fmt"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// A Conductor tab is read from Conductor's own rows (the Fallback) while
// its agent's own record is not found, and from that record once it is:
// an OpenCode tab's session appears in OpenCode's database after the tab's
// first rows, or in a database the bridge finds later. The tab is handed
// over between two turns, at the place where the new record has read as
// many of the person's prompts as the old one (agent.Prompted) and no
// turn is open in either: what the old record streamed is not streamed
// again, and everything after it comes from the new one. A tab listed
// under a new id (its row now names the agent's session) is handed over
// the same way from its tail under the old id, or, when both ids name one
// record, goes on from where that record was read.
//
// A handover waits while the old record's turn is open (and is tried
// again as soon as it ends), and does not happen while the new record
// cannot be brought to the old one's place (it holds fewer prompts, or a
// turn is open there): the tab stays on the old record, and the new one
// is tried again when the old one has read another prompt.

// handoff is a handover a tail waits for.
type handoff struct {
	turn    bool   // until its open turn ends
	record  string // the record that could not be brought to its place …
	prompts int    // … while the tail had read this many prompts
}

// recordOf is the record src keeps of m, nil when none (yet).
func (w *workspace) recordOf(src agent.Rows, m discover.Session) agent.RowRecord {
	rec, err := src.FindRows(w.ctx, agent.RowSession{ID: m.ID, Tab: m.ConductorID, Agent: m.Agent, Dir: w.ws.Directory})
	if err != nil {
		w.warnOnce("rows", "find session rows", err)
	}
	return rec
}

// ownRows is the record m's own agent keeps of it, when that agent keeps
// records as rows and has one.
func (w *workspace) ownRows(m discover.Session) (agent.Rows, agent.RowRecord) {
	own, _ := w.eng.agents.rowSources()
	for _, r := range own {
		if r.Name() != m.Agent {
			continue
		}
		if rec := w.recordOf(r, m); rec != nil {
			return r, rec
		}
	}
	return nil, nil
}

// isFallback reports whether the driver named src is the fallback.
func (w *workspace) isFallback(src string) bool {
	_, ok := w.eng.agents.named(src).(agent.Fallback)
	return ok
}

// betterRows is the own record of a session t reads from the fallback,
// nil while there is none, or the one found is the one that could not
// be brought to t's place and t has read no prompt since.
func (w *workspace) betterRows(t *tail, m discover.Session) (agent.Rows, agent.RowRecord) {
	if !w.isFallback(t.source) {
		return nil, nil
	}
	src, rec := w.ownRows(m)
	if rec == nil {
		return nil, nil
	}
	if n, _ := prompts(t.parser); t.handoff.record == rec.Name() && t.handoff.prompts == n {
		rec.Close()
		return nil, nil
	}
	return src, rec
}

// predecessor is the tail wt's session takes over from, nil when it is
// started afresh: t itself (the same id, read from the fallback until
// now), or the tail of the same tab under the id it was listed by before,
// which no longer is. A record of rows takes over only from another
// record of rows, and only the same record or one read from the fallback.
func (w *workspace) predecessor(t *tail, id string, wt wanted, want map[string]wanted) *tail {
	if wt.rows == nil {
		return nil
	}
	from := t
	if from == nil && wt.meta.ConductorID != "" {
		for _, o := range w.tails {
			if _, still := want[o.id]; o.id != id && !still && o.meta.ConductorID == wt.meta.ConductorID {
				from = o
				break
			}
		}
	}
	if from == nil || from.rows == nil || from.handed {
		return nil
	}
	same := from.reader.Path == wt.path && from.source == wt.src.Name()
	if !same && (!w.isFallback(from.source) || w.isFallback(wt.src.Name())) {
		return nil
	}
	return from
}

// handover makes the tail of id reading wt's record from where from
// stands (see above), after reading what from's record still holds; ok
// is false when it cannot now.
func (w *workspace) handover(from *tail, id string, wt wanted, evs *[]event.Event) (*tail, bool) {
	*evs = w.finish(from, *evs)
	from.handoff.turn = from.parser.InTurn()
	if from.handoff.turn {
		return nil, false
	}
	var p agent.Parser
	var err error
	if from.reader.Path == wt.path && from.source == wt.src.Name() {
		// The same record under a new id: go on from where it was read.
		saved, serr := from.parser.Save()
		if serr != nil {
			w.warnOnce("parser", "hand the session over", serr)
			return nil, false
		}
		p, err = wt.src.NewParser(saved, w.eng.cfg.Prices)
	} else {
		n, counted := prompts(from.parser)
		if !counted {
			return nil, false // a count from before parsers counted: stay
		}
		if p, err = wt.src.NewParser(nil, w.eng.cfg.Prices); err == nil {
			var at bool
			at, err = w.align(wt.rows, p, n)
			if err == nil && !at {
				from.handoff.record, from.handoff.prompts = wt.path, n
				w.eng.log.Info().Str("workspace", w.id).Str("session", from.id).Str("record", wt.path).Int("prompts", n).
					Msg("the session's own record does not reach where its Conductor record stands yet; staying on Conductor's")
				return nil, false
			}
		}
	}
	if err != nil {
		w.warnOnce("parser", "hand the session over", err)
		return nil, false
	}
	t := &tail{id: id, agent: cmpOr(wt.meta.Agent, wt.src.Name()), parser: p, meta: wt.meta}
	w.eng.bind(t)
	t.source = wt.src.Name()
	if id == from.id {
		// The same session: its state and its last event go on.
		t.status, t.reason, t.since, t.needs, t.lastID, t.hinted = from.status, from.reason, from.since, from.needs, from.lastID, from.hinted
	}
	w.attachRows(t, wt.rows)
	w.eng.log.Info().Str("workspace", w.id).Str("session", id).Str("from", from.reader.Path).Str("to", wt.path).
		Msg("session handed over to its own record")
	return t, true
}

// align reads rec into the fresh parser p, its events dropped, until p
// stands where a record that read n of the person's prompts, and is
// between turns, stands; at is false when rec ends first (p has then read
// all of it). The rows after that place are left for the tail to read.
func (w *workspace) align(rec agent.RowRecord, p agent.Parser, n int) (at bool, err error) {
	if _, ok := p.(agent.Prompted); !ok {
		return false, fmt.Errorf("%s: its parser does not count prompts", rec.Name())
	}
	there := func() bool {
		k, _ := prompts(p)
		return k == n && !p.InTurn()
	}
	if there() {
		return true, nil
	}
	var drop []event.Event
	for {
		more, err := rec.Read(w.ctx, p, maxRows, func(line []byte) {
			if at {
				return // not fed: the tail reads it
			}
			drop, _ = p.Line(line, drop[:0])
			at = there()
		})
		if err != nil || at || !more {
			return at, err
		}
	}
}

// prompts is how many of the person's prompts p read; counted is false
// when p does not count them from the record's start.
func prompts(p agent.Parser) (n int, counted bool) {
	if c, ok := p.(agent.Prompted); ok {
		return c.Prompts()
	}
	return 0, false
}
