package engine

import (
	"encoding/json"
	"hash/maphash"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
)

// A live agent's batch is one event of a few hundred bytes, its mark
// kilobytes (the parser's state: the turn's sums, the responses counted
// once). Journaling the mark with every batch made the journal ten
// times the events. So most lines carry a delta instead: where each
// session's reading stands, and its status when it changed. The parser
// state is not in it: it follows from the bytes read, parsing being
// deterministic, so a restart rebuilds it by parsing again the bytes
// between the last whole mark and the newest delta, dropping the
// events (they are journaled, with their ids). A change the bytes do not
// explain (a hook ending a turn, a quiet spell, a session or subagent
// coming or going, a transcript read again from its start) journals
// the whole mark: at once, or with the next batch for a hook's word that
// published nothing of its own (beforeRead).

// delta is a journal line's resume point in place of the whole mark.
type delta struct {
	Sessions map[string]sessionDelta `json:"s"` // the sessions whose position or status moved
}

// sessionDelta is what changed of one session since the line before.
type sessionDelta struct {
	Offset int64            `json:"o,omitempty"`   // read up to here; 0: unchanged
	Subs   map[string]int64 `json:"sub,omitempty"` // subagent files read up to, by base name
	Status *statusDelta     `json:"st,omitempty"`
	LastID int64            `json:"l,omitempty"`
}

type statusDelta struct {
	State  string    `json:"s"`
	Reason string    `json:"r"`
	Since  time.Time `json:"t"`
}

// journaled is what the journal holds of a session as of its last line.
type journaled struct {
	offset         int64
	subs           map[string]int64 // by path
	status, reason string
	since          time.Time
	lastID         int64
	shape          shape       // see shapeOf
	state          parserState // see stateOf
	wholeAt        int64       // offset at the last whole mark the engine asked for
}

// maxReplay bounds the transcript bytes a restart parses again per
// session: beyond it the whole mark is journaled. Events are cut to a
// bound, so a few kilobytes of journal can stand for megabytes of tool
// output.
const maxReplay = 8 << 20

// idleReplay bounds it for a session whose turn just ended, where its
// journal most often ends while the bridge restarts: a cold start reads
// a thousand workspaces, and should not parse megabytes of each again.
// One whole mark per turn of this much transcript costs next to nothing.
const idleReplay = 64 << 10

// shape is what a delta cannot change of a session: which files it
// reads, and which subagents' states the mark carries (their paths are
// journaled.subs' keys). It is kept as the fields themselves, not a
// hash of them: they are compared for every batch a workspace reads,
// and a string the mark took from the tail is the journaled one, which
// compares at once, where hashing went through its bytes one by one.
type shape struct {
	path, agent string
	// Needs changes with a hook, not with bytes read: a change of it
	// journals the whole mark.
	needs    string
	subsDone int64 // UnixNano
}

// shapeOf is tc's shape.
func shapeOf(tc tailMark) shape {
	return shape{path: tc.Path, agent: tc.Agent, needs: tc.Needs, subsDone: tc.SubsDone.UnixNano()}
}

// sameShape reports whether tc has the shape the journal's last line
// holds for its session, j: the same fields and the same subagents.
func sameShape(tc tailMark, j *journaled) bool {
	if shapeOf(tc) != j.shape || len(tc.Subs) != len(j.subs) {
		return false
	}
	for p := range tc.Subs {
		if _, ok := j.subs[p]; !ok {
			return false
		}
	}
	return true
}

// parserState stands for a session's parsers' states, to tell whether
// they changed since the journal's last line (stateOf).
type parserState struct {
	changes uint64 // the session's parser's stateCounter, when counted
	counted bool
	hash    uint64 // the states hashed: the session's parser's unless counted, its subagents'
}

// stateOf stands for the parsers' states: when they changed with nothing
// read, something besides the bytes changed them. It is taken for every
// session at every batch a workspace journals, while the states are
// kilobytes, growing with the session: a parser that counts the changes
// it undergoes but by lines (stateCounter) is asked for its count, and
// only the others' states are hashed. Not that of a record of rows
// (rows.go): its reading moves no offset, so its lines change the state
// with nothing read as far as delta can tell. The subagents' states are
// hashed from the bytes their marks hold already (subMarks).
//
// They are hashed through maphash (words at a time, seeded per
// workspace: its hashes are compared with its own only), not a byte
// at a time, and a parser that can hash its state without encoding it
// (stateHasher) does. tc is t's mark (its subagents' states are in it).
// h is the workspace's (stateHash), reset here: one made for each call
// was a heap allocation a line.
func stateOf(h *maphash.Hash, t *tail, tc tailMark) parserState {
	var s parserState
	if c, ok := t.parser.(stateCounter); ok && t.rows == nil {
		s.changes, s.counted = c.StateChanges(), true
		if len(tc.Subs) == 0 {
			return s
		}
	}
	h.Reset()
	sh, hashes := t.parser.(stateHasher)
	switch {
	case s.counted:
	case hashes:
		sh.HashState(h)
	case tc.Parser != nil:
		h.Write(tc.Parser)
	default:
		raw, _ := t.parser.Save()
		h.Write(raw)
	}
	h.WriteByte(0)
	eachSorted(tc.Subs, func(_ string, sc subMark) {
		h.Write(sc.Parser)
		h.WriteByte(0)
	})
	s.hash = h.Sum64()
	return s
}

// stateCounter is a parser that counts the changes to its state made
// but by reading lines (Flush, Quiet, a hook's word, …): every call but
// Line that changes the state moves the count, and none that leaves the
// state as it was (transcript.Parser, codex.Parser). The count standing
// still since the journal's last line, with no bytes read, says the
// state stood still too.
type stateCounter interface {
	StateChanges() uint64
}

// stateHasher is a parser that hashes its state as Save would say it,
// without encoding it (transcript.Parser).
type stateHasher interface {
	HashState(h *maphash.Hash)
}

// stateHash is w's hash for stateOf, seeded on first use.
func (w *workspace) stateHash() *maphash.Hash {
	if !w.seeded {
		w.hash.SetSeed(maphash.MakeSeed())
		w.seeded = true
	}
	return &w.hash
}

// workspaceShape is what the journal's last line holds of which
// sessions a workspace follows and of the retired ones. A retired entry
// is written once, when its session stops being followed, so its path,
// offset and time of leaving tell every change of it.
type workspaceShape struct {
	sessions map[string]struct{}     // by id
	retired  map[string]retiredShape // by path
}

type retiredShape struct{ offset, left int64 }

func retiredShapeOf(r tailMark) retiredShape {
	return retiredShape{offset: r.Offset, left: r.Left.UnixNano()}
}

// same reports whether c follows the sessions s holds and retired the
// same ones.
func (s *workspaceShape) same(c mark) bool {
	if len(c.Sessions) != len(s.sessions) || len(c.Retired) != len(s.retired) {
		return false
	}
	for id := range c.Sessions {
		if _, ok := s.sessions[id]; !ok {
			return false
		}
	}
	for p, r := range c.Retired {
		if was, ok := s.retired[p]; !ok || was != retiredShapeOf(r) {
			return false
		}
	}
	return true
}

// set makes s c's shape; one like it already is left alone, so a line
// that changes no shape allocates nothing.
func (s *workspaceShape) set(c mark) {
	if s.sessions != nil && s.same(c) {
		return
	}
	s.sessions = make(map[string]struct{}, len(c.Sessions))
	for id := range c.Sessions {
		s.sessions[id] = struct{}{}
	}
	s.retired = make(map[string]retiredShape, len(c.Retired))
	for p, r := range c.Retired {
		s.retired[p] = retiredShapeOf(r)
	}
}

// delta returns what changed since the journal's last line as a delta,
// or whole when only the whole mark can say it. An empty delta means
// nothing changed.
func (w *workspace) delta(c mark) (d delta, whole bool) {
	if !w.journaledOK || !w.journaledShape.same(c) {
		return d, true
	}
	d.Sessions = w.deltaSessions()
	for id, tc := range c.Sessions {
		t := w.tails[id]
		j := t.journaled
		if t.rewound || t.outOfBand || !sameShape(tc, &j) || tc.Offset < j.offset || tc.Offset-j.wholeAt > maxReplay {
			return d, true
		}
		if j.status == event.StateWorking && tc.Status != j.status && tc.Offset-j.wholeAt > idleReplay {
			return d, true // the turn ended: journal where it stands
		}
		var sd sessionDelta
		moved := tc.Offset != j.offset
		if moved {
			sd.Offset = tc.Offset
		}
		bases := make(map[string]bool, len(tc.Subs))
		for p, sc := range tc.Subs {
			base := filepath.Base(p)
			if bases[base] || sc.Offset < j.subs[p] {
				return d, true // two subagents one name; a file read again
			}
			bases[base] = true
			if sc.Offset != j.subs[p] {
				if sd.Subs == nil {
					sd.Subs = make(map[string]int64)
				}
				sd.Subs[base], moved = sc.Offset, true
			}
		}
		if !moved && stateOf(w.stateHash(), t, tc) != j.state {
			return d, true
		}
		if tc.Status != j.status || tc.Reason != j.reason || !tc.Since.Equal(j.since) {
			sd.Status = &statusDelta{State: tc.Status, Reason: tc.Reason, Since: tc.Since}
		}
		if tc.LastID != j.lastID {
			sd.LastID = tc.LastID
		}
		if sd.Offset != 0 || sd.Subs != nil || sd.Status != nil || sd.LastID != 0 {
			d.Sessions[id] = sd
		}
	}
	return d, false
}

// journaledAs records that the journal now holds c (whole when asked).
func (w *workspace) journaledAs(c mark, whole bool) {
	w.journaledOK = true
	w.journaledShape.set(c)
	w.journaledSessions(c, whole)
}

// journaledSessions is journaledAs for a c whose shape the journal holds
// already: delta found it so before c's delta was journaled, and
// comparing it again cost a walk of the sessions a line.
func (w *workspace) journaledSessions(c mark, whole bool) {
	for id, tc := range c.Sessions {
		t := w.tails[id]
		j := journaledOf(tc, t.journaled.subs)
		j.state, j.wholeAt = stateOf(w.stateHash(), t, tc), t.journaled.wholeAt
		if whole {
			j.wholeAt = tc.Offset
		}
		t.journaled, t.rewound, t.outOfBand = j, false, false
	}
}

// journaledOf is what a journal line holding tc holds of its session,
// but for the parsers' state and where the last whole mark stood. Its
// subagents' offsets go in subs, emptied, when not nil: the map the
// journal's line before held for the session, which only delta reads,
// and a new one for every line was an allocation a line of a session
// with subagents.
func journaledOf(tc tailMark, subs map[string]int64) journaled {
	j := journaled{offset: tc.Offset, status: tc.Status, reason: tc.Reason, since: tc.Since, lastID: tc.LastID,
		shape: shapeOf(tc)}
	if len(tc.Subs) == 0 {
		return j
	}
	if j.subs = subs; j.subs == nil {
		j.subs = make(map[string]int64, len(tc.Subs))
	}
	clear(j.subs)
	for p, sc := range tc.Subs {
		j.subs[p] = sc.Offset
	}
	return j
}

// beforeRead is told as a batch starts reading t's record. A change its
// parser's state took since the journal's last line but by lines (the
// hooks call in: HooksCall; a Stop hook went on: TurnGoesOn) is journaled
// by no line of its own, and parsing the bytes the batch reads again would
// not make it: the batch's line must then carry the whole mark (outOfBand).
// A parser that counts such changes (stateCounter) tells by its count,
// taken here, before the first byte: the lines the batch reads can move
// it too (a line that ends a turn), and so can the batch's Flush, which
// replayStep does again. Another parser's state is not hashed per batch
// for this: the engine changes those only where it publishes at once (a
// quiet spell, NeedsInput's Ask), journaling the whole mark then.
func (t *tail) beforeRead() {
	j := t.journaled.state
	if c, ok := t.parser.(stateCounter); ok && t.rows == nil && j.counted && c.StateChanges() != j.changes {
		t.outOfBand = true
	}
}

// replay brings the tails restored from the last whole mark up to the
// deltas journaled after it, one line at a time as they were read. A
// session whose bytes cannot be parsed again (its transcript shrank or
// is gone) is put at its journaled position with the state it reached,
// as a restart did before deltas: no event is read twice.
func (w *workspace) replay(deltas []json.RawMessage) {
	var scratch []event.Event
	for _, raw := range deltas {
		var d delta
		if err := json.Unmarshal(raw, &d); err != nil {
			w.warnOnce("resume", "journal delta unreadable; resuming from the one before", err)
			return
		}
		for _, id := range sortedKeys(d.Sessions) {
			if t := w.tails[id]; t != nil {
				scratch = t.replayStep(d.Sessions[id], scratch)
			}
		}
	}
	clear(scratch)
}

// replayStep parses what one journal line's batch read of the session,
// as readTail did: its transcript, its subagents' files, then Flush.
func (t *tail) replayStep(sd sessionDelta, scratch []event.Event) []event.Event {
	if sd.Status != nil {
		t.status, t.reason, t.since = sd.Status.State, sd.Status.Reason, sd.Status.Since
	}
	if sd.LastID != 0 {
		t.lastID = sd.LastID
	}
	if sd.Offset == 0 && sd.Subs == nil {
		return scratch
	}
	if t.stale || (sd.Offset != 0 && !reparse(&t.reader, sd.Offset, func(line []byte) {
		scratch, _ = t.parser.Line(line, scratch[:0])
	})) {
		t.stale = true // positions only from here on
		if sd.Offset != 0 {
			t.reader.Close()
			t.reader = linefile.Reader{Path: t.reader.Path, Offset: sd.Offset, Budget: backlogBudget, Files: t.reader.Files}
		}
		for p, st := range t.subs {
			if off, ok := sd.Subs[filepath.Base(p)]; ok {
				st.reader = linefile.Reader{Path: p, Offset: off}
			}
		}
		return scratch
	}
	for _, p := range slices.Sorted(maps.Keys(t.subs)) {
		st := t.subs[p]
		off, ok := sd.Subs[filepath.Base(p)]
		if !ok || off <= st.reader.Offset {
			continue // nothing new in it: its read was empty
		}
		// Its events are dropped; a budget stops it where the batch did.
		st.reader.Budget = off - st.reader.Offset
		scratch, _ = st.read(t.parser, scratch[:0])
		st.reader.Budget = 0
		if st.reader.Offset != off {
			st.reader = linefile.Reader{Path: p, Offset: off}
		}
	}
	return t.parser.Flush(scratch[:0])
}

// reparse hands line to fn from r's offset up to off, which a journal
// line says a batch read to; false when the file no longer holds those
// bytes (r is then left wherever it got).
func reparse(r *linefile.Reader, off int64, fn func(line []byte)) bool {
	if off <= r.Offset {
		return off == r.Offset
	}
	budget := r.Budget
	defer func() { r.Budget = budget }()
	// A read under a budget ends at the first line's end past it: off
	// is one, where the batch ended.
	r.Budget = off - r.Offset
	res, err := r.Read(func(line []byte, _ int64) { fn(line) })
	return err == nil && !res.Reset && r.Offset == off
}
