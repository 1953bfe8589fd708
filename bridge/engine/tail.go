package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
)

// tail follows one agent session's record: its reader, its parser and the
// state it announced. It belongs to its workspace's goroutine.
type tail struct {
	id     string       // the agent's session id (the transcript's base name)
	agent  string       // its driver's Name (Config.Agents)
	tag    string       // the agent name its events carry ("" for the default agent's)
	nest   agent.Nested // its subagents' files, nil for an agent with none
	source string       // the name of the driver reading its record
	reader linefile.Reader
	rows   agent.RowRecord // a record of rows instead of a file (rows.go); reader.Path is its Name
	parser agent.Parser
	meta   discover.Session // what discovery knows of it (Conductor's tab)

	subs      map[string]*subTail // 2.1 subagent transcripts of the session
	subOrder  []string            // the paths of subs, in order (setSub, dropSub)
	subGlobs  subGlobs            // where they are (globs)
	subDirMod time.Time
	// lookedAt is Engine.folders when the session's folders were last
	// looked at, if they are watched such that a new subagent file in
	// them is a file event (quiet); see look.
	lookedAt   uint64
	quiet      bool
	lookedOnce bool
	coldSubs   bool      // first sight of a large session: read its subagents' tails only
	subsSince  time.Time // caught up (catchup.go): its subagent files are read from where they stood then
	subsDone   time.Time // from the journal: subagent files last changed before it were read
	beside     *besideAgents

	// heldAt is Engine.folders when the record was last looked at by
	// its reader (heldLooked), its folder then watched such that every
	// file made, moved or deleted in it is a file event (heldWatched):
	// for a while, and while it stands still, its reader reads the file
	// it holds open without looking at it first (see unchanged).
	heldAt      uint64
	heldLooked  time.Time
	heldWatched bool
	// liveRead: liveMod is when the record's last line was read, not the
	// file's own time (its reader took no stat, see unchanged): a moment
	// later. What decides on how long the record has been quiet takes
	// the file's own (lastMod).
	liveRead bool

	status, reason string
	since          time.Time
	needs          string // a hook said the agent waits for the person, and why
	liveMod        time.Time
	liveSize       int64
	malformed      int
	oversized      int
	lastID         int64     // the last event id this session published
	hinted         bool      // adopted from a hook call, not found by a listing
	agentPID       int       // the live agent last seen running the open turn (orphan.go)
	ownedAt        time.Time // the last write as of which a live agent process may be writing the open turn (unowned.go)
	handoff        handoff   // a handover to the session's own record it waits for (handover.go)
	handed         bool      // handed over to another tail: nothing more is read from it

	journaled journaled // what the journal's last line holds of it (see delta)
	rewound   bool      // read again from its start since: the bytes no longer explain its state
	outOfBand bool      // its parser's state changed since but by lines, then bytes were read: see beforeRead
	stale     bool      // a restart could not parse its journaled bytes again (see replay)
}

// tailMark is a session's resume point in the workspace's journal.
type tailMark struct {
	Path  string `json:"path"`
	Agent string `json:"agent,omitempty"`
	// Source is the driver reading a record of rows (rows.go), whose
	// parser's state is where the record was read up to.
	Source string          `json:"source,omitempty"`
	Offset int64           `json:"offset"`
	Parser json.RawMessage `json:"parser,omitempty"`
	Status string          `json:"status,omitempty"`
	Reason string          `json:"reason,omitempty"`
	// Needs is what a hook said the agent waits for (a permission
	// prompt), which its record does not show: kept across a restart.
	Needs string             `json:"needs,omitempty"`
	Since time.Time          `json:"since,omitzero"`
	Subs  map[string]subMark `json:"subs,omitempty"`
	// SubsDone: subagent files not in Subs and last changed before it
	// were read to their end (subIdle).
	SubsDone time.Time `json:"subs_done,omitzero"`
	LastID   int64     `json:"last_id,omitempty"`
	Left     time.Time `json:"left,omitzero"` // retired: when it stopped being followed
}

func (t *tail) mark() tailMark {
	tc := t.markWithout()
	tc.Parser, _ = t.parser.Save()
	return tc
}

// markWithout is the mark but for the parser's state.
func (t *tail) markWithout() tailMark {
	subs, done := t.subMarks()
	src := ""
	if t.rows != nil {
		src = t.source
	}
	return tailMark{Path: t.reader.Path, Agent: t.agent, Source: src, Offset: t.reader.Offset,
		Status: t.status, Reason: t.reason, Needs: t.needs, Since: t.since, Subs: subs, SubsDone: done, LastID: t.lastID}
}

// stamp marks events from index n on as this session's.
func (t *tail) stamp(evs []event.Event, n int) {
	for i := n; i < len(evs); i++ {
		evs[i].SessionID = t.id
		if t.tag != "" {
			evs[i].Agent = t.tag
		}
	}
}

// state is the session's status from everything known about it, most
// telling first: a hook saying the agent waits, the record itself (an
// unanswered question, an open turn), then Conductor's own word.
func (t *tail) state() (string, string) {
	if t.needs != "" {
		return event.StateNeedsInput, t.needs
	}
	if w, ok := t.parser.(agent.Waiter); ok {
		if r := w.Waiting(); r != "" {
			return event.StateNeedsInput, r
		}
	}
	switch t.meta.ConductorStatus {
	case "needs_user_input":
		return event.StateNeedsInput, "question"
	case "needs_plan_response":
		return event.StateNeedsInput, "plan"
	}
	if t.parser.InTurn() {
		return event.StateWorking, ""
	}
	if t.meta.ConductorStatus == "error" {
		return event.StateError, ""
	}
	return event.StateIdle, ""
}

// statusChange appends a status event when the session's state changed.
func (t *tail) statusChange(evs []event.Event, moved bool) []event.Event {
	if !t.parser.InTurn() {
		t.agentPID = 0 // the agent noted for a turn is not the next turn's (it may quit, and another run it)
	}
	if t.needs != "" && moved {
		t.needs = "" // the agent moved on: it has its answer
	}
	st, reason := t.state()
	if st == t.status && reason == t.reason {
		return evs
	}
	t.status, t.reason, t.since = st, reason, time.Now()
	return append(evs, event.Event{Type: event.Status, TS: t.since, SessionID: t.id, Agent: t.tag, State: st, Reason: reason})
}

// unchanged reports whether no file can have been made, moved or deleted
// in the folder of t's record since its reader last looked at it, so that
// it may read the file it holds open at once (linefile.Reader.Unchanged):
// every line a busy agent writes is read, and looking at the file first
// was a system call a line. It holds while the folder is watched by a
// watch that names every such change (inotify's, dirEventsNameFiles), the
// record is no symbolic link (a change to the file it names is no event
// of its folder's) and no file event but a write came since
// (Engine.folders) — for heldFor at most, a bound on what a file event
// that never comes (a network file system's) can hide. Otherwise this
// read looks, and the next may take the folder's events for granted if
// it is watched now: both are noted before reading, so a change made
// while this read looks is an event the next one sees. Whether it is
// watched is learnt again after a file event, or a second later if it
// was not: not for every look (a stat of the record's path).
func (t *tail) unchanged(e *Engine, now time.Time) bool {
	gen := e.folders.Load()
	if gen == t.heldAt && !t.heldLooked.IsZero() && now.Sub(t.heldLooked) < heldFor {
		return t.heldWatched
	}
	if gen != t.heldAt || t.heldLooked.IsZero() || !t.heldWatched {
		t.heldWatched = dirEventsNameFiles && *e.cfg.WatchDirs && e.isWatched(filepath.Dir(t.reader.Path))
		if t.heldWatched {
			info, err := os.Lstat(t.reader.Path)
			t.heldWatched = err == nil && info.Mode().IsRegular()
		}
	}
	t.heldAt, t.heldLooked = gen, now
	return false
}

// heldFor is how long a record's reader may go without looking at it
// while no file event says it must (unchanged).
const heldFor = time.Second

// statFile records the live file's modification time and size, for the
// sweep and for "most recently active".
func (t *tail) statFile() {
	if info, err := os.Stat(t.reader.Path); err == nil {
		t.liveMod, t.liveSize, t.liveRead = info.ModTime(), info.Size(), false
	}
}

// lastMod is when t's record last changed, the file's own time: one stat
// where liveMod is not known or only when a line was read (liveRead).
func (t *tail) lastMod() time.Time {
	if t.liveMod.IsZero() || t.liveRead {
		t.statFile()
	}
	return t.liveMod
}

// bind gives a tail what its agent's driver says of it: the name its
// events carry and, for an agent whose subagents write files of their
// own, where.
func (e *Engine) bind(t *tail) {
	t.tag = e.agents.tag(t.agent)
	t.subGlobs = subGlobs{} // its agent's, worked out again
	a := e.agents.named(t.agent)
	if a == nil {
		return // read by another agent's driver (rows.go)
	}
	t.source = a.Name()
	t.nest, _ = a.(agent.Nested)
}
