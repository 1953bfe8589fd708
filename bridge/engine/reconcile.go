package engine

import (
	"os"

	"conductorbridge/bridge/agent"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
)

// Session event reasons: a session began or ended being followed.
const (
	SessionStart = "start"
	SessionEnd   = "end"
)

// wanted is a session the workspace should follow, and where its record is.
type wanted struct {
	path string
	meta discover.Session
	// A record of rows instead of a file (rows.go), read by src.
	rows agent.RowRecord
	src  agent.Rows
}

// reconcile decides which sessions the workspace follows now and starts or
// ends their tails. A session is followed when discovery names it with a
// readable transcript (every Conductor tab), when its transcript in the
// workspace's folder was written within the active window (every claude
// run in the directory), or when a hook named it. A tail no longer wanted
// ends once its turn is over; where it was left is kept, so it resumes in
// place if it comes back.
func (w *workspace) reconcile(evs []event.Event) []event.Event {
	want := make(map[string]wanted)
	tabOf := make(map[string]string) // Conductor session id → its agent session id now
	if w.tabOf == nil {
		w.tabOf = make(map[string]string)
	}
	known := make(map[string]discover.Session, len(w.ws.Sessions)) // by agent session id
	for _, m := range w.ws.Sessions {
		known[m.ID] = m
		if m.ConductorID != "" {
			tabOf[m.ConductorID] = m.ID
			w.tabOf[m.ID] = m.ConductorID
		}
		if _, rows := w.eng.agents.named(m.Agent).(agent.Rows); !rows && m.Transcript != "" && w.eng.readable(m.Agent) {
			want[m.ID] = wanted{path: m.Transcript, meta: m}
		} else if src, rec := w.findRows(m); rec != nil {
			want[m.ID] = wanted{path: rec.Name(), meta: m, rows: rec, src: src}
		}
	}
	w.oneReaderARecord(want)
	// A tab resumed under a new id: its old session is not followed as a
	// second one, even while its file is recent. The tab a session was
	// seen in is remembered past its tail, or the next listing of recent
	// files would bring the old session back as a stranger.
	for id, tab := range w.tabOf {
		if tabOf[tab] == "" {
			delete(w.tabOf, id) // the tab is closed: forget its sessions
		}
	}
	moved := func(id string) bool {
		tab := w.tabOf[id]
		return tab != "" && tabOf[tab] != id
	}
	if dirs := w.eng.agents.perDirectory(); dirs != nil && w.ws.ProjectDir != "" {
		// The newest file stands for the workspace's session only where
		// no session is known by its id (a plain project, an old
		// Conductor): a known tab's own transcript is its record, and an
		// older file beside it (a hidden tab's, a closed one's) is not.
		list, err := discover.RecentTranscripts(dirs.RecordCwd, w.ws.ProjectDir, w.ws.Directory, time.Now().Add(-w.eng.cfg.ActiveWindow), len(known) == 0)
		if err != nil && !isNotExist(err) {
			w.warnOnce("list", "list sessions", err)
		}
		for _, tr := range list {
			if _, ok := want[tr.ID]; !ok && !moved(tr.ID) {
				// A tab whose transcript appeared after the scan that
				// listed it: still that tab (its title, its status).
				want[tr.ID] = wanted{path: tr.Path, meta: known[tr.ID]}
			}
		}
	}
	for id, p := range w.hinted {
		if _, err := os.Stat(p); err != nil {
			delete(w.hinted, id)
			continue
		}
		if _, ok := want[id]; !ok {
			want[id] = wanted{path: p, meta: known[id]}
		}
	}

	for _, id := range sortedKeys(want) {
		wt := want[id]
		t := w.tails[id]
		if t != nil && t.reader.Path == wt.path {
			t.meta = wt.meta
			continue
		}
		if from := w.predecessor(t, id, wt, want); from != nil {
			nt, ok := w.handover(from, id, wt, &evs)
			if !ok { // not now: the tab stays where it is read
				wt.rows.Close()
				if from == t {
					t.meta = wt.meta
				} else { // still followed under its old id
					want[from.id] = wanted{path: from.reader.Path, meta: from.meta}
				}
				continue
			}
			if from == t {
				w.detachRows(t)
			} else {
				from.handed = true
			}
			t = nt
		} else {
			if t != nil { // the same session, written elsewhere now
				evs = w.finish(t, evs)
				w.detachRows(t)
			}
			if t = w.start(id, wt); t == nil {
				continue
			}
		}
		w.holdEnds(t)
		w.tails[id] = t
		w.watchTail(t)
		evs = append(evs, event.Event{Type: event.Session, TS: time.Now(), SessionID: id, Agent: t.tag, Path: t.reader.Path, Reason: SessionStart})
	}
	for _, id := range sortedKeys(w.tails) {
		t := w.tails[id]
		if _, ok := want[id]; ok {
			continue
		}
		if t.parser.InTurn() && !moved(id) && fileSize(t.reader.Path) >= 0 {
			continue // still working: it ends when its turn does
		}
		if !t.handed {
			evs = w.finish(t, evs)
		}
		evs = append(evs, event.Event{Type: event.Session, TS: time.Now(), SessionID: id, Agent: t.tag, Path: t.reader.Path, Reason: SessionEnd})
		w.retire(t)
		w.detachRows(t)
		t.reader.Close()
		delete(w.tails, id)
	}
	return evs
}

// start makes the tail of a session seen for the first time, resuming it
// where it was left if it was followed before.
func (w *workspace) start(id string, wt wanted) *tail {
	if wt.rows != nil {
		return w.startRows(id, wt)
	}
	agentName := cmpOr(wt.meta.Agent, w.eng.agents.of(wt.path).Name())
	if tc, ok := w.retired[wt.path]; ok {
		delete(w.retired, wt.path)
		if t := w.resume(id, tc); t != nil {
			t.meta = wt.meta
			return t
		}
	}
	p, err := w.eng.newParser(agentName, nil)
	if err != nil {
		w.warnOnce("parser", "start session", err)
		return nil
	}
	t := &tail{id: id, agent: agentName, reader: linefile.Reader{Path: wt.path, Budget: backlogBudget, Files: w.eng.cfg.Files}, parser: p, meta: wt.meta}
	w.eng.bind(t)
	info, err := os.Stat(wt.path)
	switch down := w.downtime(); {
	case err != nil:
	case changedWhileDown(info, down):
		// Written since anyone saw it (catchup.go): what it gained is
		// news, read from where it stood then, its start for a session
		// born since — and never less than the tail an old transcript
		// gets (a record whose lines are stamped long ago).
		off := catchUpFrom(wt.path, info.Size(), down)
		if tail := info.Size() - w.tailBytes(); tail < off {
			off = max(tail, 0)
		}
		if off > 0 {
			t.reader.SkipTo(off)
		}
		t.subsSince = down
	case info.Size() > w.tailBytes():
		// An old transcript seen for the first time: only its tail
		// matters. A session that just began is still small.
		t.reader.SkipTo(info.Size() - w.tailBytes())
		t.relist()
		t.coldSubs = true
	}
	t.statFile()
	return t
}

// finish reads what is left of a tail before it stops being followed.
func (w *workspace) finish(t *tail, evs []event.Event) []event.Event {
	evs = w.readTail(t, evs)
	return evs
}

// retire remembers where an ended session was left.
func (w *workspace) retire(t *tail) {
	if w.retired == nil {
		w.retired = make(map[string]tailMark)
	}
	tc := t.mark()
	// The mark is journaled with every batch of the workspace: keep a
	// retired session's to where it was read, not its parser's memory
	// (an ended session has no open turn worth carrying).
	tc.Parser, tc.Subs, tc.Left = nil, nil, time.Now()
	if t.rows != nil {
		tc.Parser, _ = t.parser.Save() // a record of rows: where it was read up to
	}
	w.retired[t.reader.Path] = tc
	for len(w.retired) > maxRetired {
		oldest := ""
		for p, st := range w.retired {
			if oldest == "" || st.Left.Before(w.retired[oldest].Left) {
				oldest = p
			}
		}
		delete(w.retired, oldest)
	}
}

// oneReaderARecord drops from want a session that is not a Conductor tab
// (an agent's plain run in the folder) whose record a tab reads, or is
// about to be handed over to (handover.go): a tab whose row names no
// session of its agent finds its record by its folder, and the same
// session listed as a run would stream it a second time.
func (w *workspace) oneReaderARecord(want map[string]wanted) {
	claimed := make(map[string]bool)
	for _, wt := range want {
		if wt.meta.ConductorID != "" {
			claimed[wt.path] = true
		}
	}
	for _, t := range w.tails {
		if t.meta.ConductorID != "" && t.handoff.record != "" {
			claimed[t.handoff.record] = true
		}
	}
	for id, wt := range want {
		if wt.meta.ConductorID == "" && claimed[wt.path] {
			delete(want, id)
		}
	}
}
