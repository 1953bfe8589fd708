package engine

import (
	"context"
	"encoding/json"
	"errors"
	"hash/maphash"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/stream"
)

// mark is what a workspace journals with its events to resume exactly
// where it stopped: every session's tail, and where recently retired
// sessions were left (so one that comes back resumes in place).
type mark struct {
	Sessions map[string]tailMark `json:"sessions,omitempty"` // by session id
	Retired  map[string]tailMark `json:"retired,omitempty"`  // by transcript path

	// The single-session mark journals held before sessions were
	// followed one by one: read on restore only.
	Path   string              `json:"path,omitempty"`
	Offset int64               `json:"offset,omitempty"`
	Parser json.RawMessage     `json:"parser,omitempty"`
	Status string              `json:"status,omitempty"`
	Since  time.Time           `json:"since,omitzero"`
	Subs   map[string]subMark  `json:"subs,omitempty"`
	Others map[string]tailMark `json:"others,omitempty"`
}

// maxRetired bounds how many ended sessions' positions a workspace keeps.
const maxRetired = 16

// backlogBudget bounds the bytes of transcript read into one batch of
// events: a large backlog (written while the bridge was down) is caught
// up batch by batch, each published and released before the next.
const backlogBudget = 1 << 20

// workspace follows every session of one workspace into its topic. Its
// work is done one piece at a time, by one of the engine's runners while
// there is work (see Engine.run: a thousand idle workspaces hold no
// goroutine and no stack); other goroutines read the snapshot it publishes
// after each sync, and hand it work through update, poke and enqueue.
type workspace struct {
	hash   maphash.Hash // of its stateOf hashes, one seed: see stateHash
	seeded bool
	eng    *Engine
	id     string
	topic  *stream.Topic
	ctx    context.Context
	stop   context.CancelFunc

	update  atomic.Pointer[discover.Workspace] // the newest scan's word, taken by the loop
	relook  atomic.Bool                        // list the sessions again on the next sync
	initial bool                               // found by the first scan: counted in Engine.initial
	snap    atomic.Pointer[snapshot]

	mu      sync.Mutex // guards the work waiting and whether a goroutine is at it
	running bool
	kicked  bool     // read the sessions again
	quieted bool     // the quiet spell passed
	jobs    []func() // hook work, run in order before a sync

	// here: the watcher's goroutine is reading (workHere), at most
	// hereBudget bytes of each record; backlog: a record had more.
	here, backlog bool

	// Owned by the goroutine at work (one at a time).
	ws      discover.Workspace
	tails   map[string]*tail    // by session id
	retired map[string]tailMark // by path
	quiet   *time.Timer
	evs     []event.Event
	warned  map[string]bool
	hinted  map[string]string // session id → transcript path a hook named
	tabOf   map[string]string // agent session id → the Conductor tab it was seen in

	hookPIDs   map[string]int  // session id → the agent process its hooks came from (hookpid.go)
	stopHooked map[string]bool // session id → its hooks call in: turn ends wait for its Stop hook
	hooked     atomic.Bool     // hookPIDs is not empty: each scan checks them

	readAt, listedAt time.Time // see snapshot
	caughtUp         bool      // the first read is done
	followedAt       time.Time // when this run began following the workspace (its first read)

	// What the journal's last line holds: journaledOK once this run has
	// journaled a line, journaledShape its sessions (see delta).
	journaledOK    bool
	journaledShape workspaceShape

	pub pubScratch // what publish reuses from line to line
	one [1]*tail   // sorted's answer for one session
}

// snapshot is a workspace's state as of its last sync: immutable once
// published, so the API, the tray and the sweep read it without locks.
type snapshot struct {
	ws                   discover.Workspace
	sessions             []SessionInfo // active first, then most recent activity
	paths                []string      // transcripts being tailed
	read                 []int64       // how far into each of paths its reader has looked
	subDirs              bool          // some session has subagent files
	malformed, oversized int
	// When the sync that made it began reading the transcripts, and when
	// the sessions were last listed: the sweep's first look at a path
	// last changed before then has nothing new to find.
	readAt, listedAt time.Time
}

func newWorkspace(e *Engine, ws discover.Workspace, topic *stream.Topic) *workspace {
	ctx, cancel := context.WithCancel(e.ctx)
	w := &workspace{eng: e, id: ws.ID, topic: topic, ctx: ctx, stop: cancel, ws: ws, tails: make(map[string]*tail)}
	w.quiet = time.AfterFunc(time.Hour, func() { w.schedule(func() { w.quieted = true }) })
	w.quiet.Stop()
	w.snap.Store(&snapshot{ws: ws})
	w.relook.Store(true)
	return w
}

// poke asks for the sessions to be read again, and with relook to be
// listed again too; it never blocks.
func (w *workspace) poke(relook bool) {
	if relook {
		w.relook.Store(true)
	}
	w.schedule(func() { w.kicked = true })
}

// enqueue hands fn to the workspace, to run in turn with its reads; false
// when the workspace is no longer followed.
func (w *workspace) enqueue(fn func()) bool {
	if w.ctx.Err() != nil {
		return false
	}
	w.schedule(func() { w.jobs = append(w.jobs, fn) })
	return true
}

// schedule records work (mark runs under mu) and starts a goroutine for
// it unless one is at work already.
func (w *workspace) schedule(mark func()) {
	w.mu.Lock()
	mark()
	start := !w.running
	w.running = true
	w.mu.Unlock()
	if start {
		w.eng.run(w)
	}
}

// work does what is waiting, and what comes in meanwhile, then ends.
func (w *workspace) work() {
	for {
		w.mu.Lock()
		if w.ctx.Err() != nil {
			w.running, w.jobs = false, nil
			w.mu.Unlock()
			w.quiet.Stop()
			for _, t := range w.tails {
				w.detachRows(t)
			}
			return
		}
		jobs, kicked, quieted := w.jobs, w.kicked, w.quieted
		w.jobs, w.kicked, w.quieted = nil, false, false
		if len(jobs) == 0 && !kicked && !quieted {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		for _, fn := range jobs {
			fn()
		}
		if kicked {
			w.sync()
		}
		if quieted {
			w.quietSync()
		}
	}
}

// setWorkspace hands the goroutine a newer scan's picture of the workspace.
func (w *workspace) setWorkspace(ws discover.Workspace) {
	w.update.Store(&ws)
	w.poke(true)
}

// follow begins following: the journal's mark first, then a first read.
func (w *workspace) follow() {
	w.enqueue(func() {
		w.restore()
		w.followedAt = time.Now()
		w.sync()
		w.caughtUp = true
		if w.initial {
			w.eng.initial.Done()
		}
	})
}

// tailBytes is how much of a transcript seen for the first time is read:
// less in the first read of a workspace found at start (the cold start's
// catch-up), TailBytes after.
func (w *workspace) tailBytes() int64 {
	if w.initial && !w.caughtUp {
		return w.eng.cfg.ColdTailBytes
	}
	return w.eng.cfg.TailBytes
}

// quietSync ends the turns whose end can only be inferred, after a quiet
// spell (versions that write no stop reason).
//
// A turn held for its Stop hook's word (held) ends only once its record
// has been quiet for StopWait: the hook never spoke (the bridge was down
// when it ran, the hook failed). sync has armed the timer for that.
func (w *workspace) quietSync() {
	w.lookBeforeEnds()
	w.sync()
	evs, now := w.evs[:0], time.Now()
	for _, t := range w.sorted() {
		if !t.parser.Unsure() {
			continue
		}
		n := len(evs)
		if h, ok := held(t); !ok {
			evs = t.parser.Quiet(evs)
		} else if quiet := now.Sub(t.lastMod()); quiet >= w.eng.cfg.StopWait {
			w.eng.log.Info().Str("workspace", w.id).Str("session", t.id).Dur("quiet", quiet).
				Msg("no Stop hook's word for a turn held for it: the turn ends after its quiet")
			evs = h.Backstop(evs)
		} else {
			continue
		}
		t.stamp(evs, n)
		evs = t.statusChange(evs, false)
	}
	w.publish(evs)
}

// lookBeforeEnds has the next read look at the folders of every session
// whose turn is open, whatever file events came: a turn about to end must
// count its subagents, and a subagent file's creation event can still be
// on its way when a quiet spell or the Stop hook ends the turn (on a busy
// machine the watcher's goroutine lags), while a subagent's line read
// after the end is taken for one spent in a turn already reported. It is
// two stats a session, once a turn.
func (w *workspace) lookBeforeEnds() {
	for _, t := range w.tails {
		if t.parser.InTurn() {
			t.quiet = false
		}
	}
}

// restore resumes from the mark journaled with the topic's last events:
// the last whole one, brought up to the deltas after it.
func (w *workspace) restore() {
	res := w.topic.Resume()
	raw := res.Mark
	if raw == nil {
		return
	}
	var c mark
	if err := json.Unmarshal(raw, &c); err != nil {
		w.eng.log.Warn().Err(err).Str("workspace", w.id).Msg("journal mark unreadable; starting from the transcripts' tails")
		return
	}
	w.retired = c.Retired
	if c.Path != "" { // a journal from before sessions were followed one by one
		c.Sessions = map[string]tailMark{sessionID(c.Path): {Path: c.Path, Offset: c.Offset, Parser: c.Parser, Status: c.Status, Since: c.Since, Subs: c.Subs}}
		for p, o := range c.Others {
			if w.retired == nil {
				w.retired = make(map[string]tailMark)
			}
			w.retired[p] = o
		}
	}
	for id, tc := range c.Sessions {
		if tc.Source != "" {
			w.resumeRows(id, tc)
			continue
		}
		if t := w.resume(id, tc); t != nil {
			w.holdEnds(t)
			w.tails[id] = t
			w.watchTail(t)
		}
	}
	w.replay(res.Deltas)
}

// resume makes a tail from its journaled mark; nil if its parser state
// cannot be read (the session is then read afresh from its tail).
func (w *workspace) resume(id string, tc tailMark) *tail {
	p, err := w.eng.newParser(cmpOr(tc.Source, tc.Agent), tc.Parser)
	if err != nil {
		w.warnOnce("resume", "resume session", err)
		return nil
	}
	t := &tail{id: id, agent: cmpOr(tc.Agent, w.eng.agents.named("").Name()), reader: linefile.Reader{Path: tc.Path, Offset: tc.Offset, Budget: backlogBudget, Files: w.eng.cfg.Files},
		parser: p, status: tc.Status, reason: tc.Reason, needs: tc.Needs, since: tc.Since, lastID: tc.LastID}
	w.eng.bind(t)
	if tc.Source != "" {
		t.source = tc.Source
	}
	t.restoreSubs(tc.Subs, tc.SubsDone)
	return t
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// sync takes any newer picture of the workspace, lists its sessions when
// asked to, reads whatever each session's record gained and publishes it.
func (w *workspace) sync() {
	w.readAll()
	w.armQuiet()
}

// readAll is sync without arming the quiet timer, and reports whether it
// published anything.
func (w *workspace) readAll() bool {
	before := w.topic.LastID()
	// A new picture is always listed, whatever relook says: the scan that
	// stores it sets relook after, and a read already past this point
	// takes that relook for the picture it had, so the next read found
	// the new one with relook spent (a tab resumed under a new id kept
	// its old session followed until the next change in the list).
	relist := false
	if ws := w.update.Swap(nil); ws != nil {
		w.ws = *ws
		relist = true
	}
	// A few workspaces read at a time: at a cold start a thousand would
	// otherwise each hold a read buffer and a batch of events at once,
	// taking turns on two cores, and the peak memory is theirs.
	w.eng.reads <- struct{}{}
	defer func() { <-w.eng.reads }()
	evs := w.evs[:0]
	w.readAt = time.Now()
	if w.relook.Swap(false) || relist {
		w.listedAt = w.readAt
		evs = w.reconcile(evs)
	}
	handoff := false
	for _, t := range w.sorted() {
		evs = w.readTail(t, evs)
		if t.handoff.turn && !t.parser.InTurn() {
			t.handoff.turn = false // the turn a handover waited for ended: list again
			handoff = true
		}
	}
	w.noteAgents()
	w.publish(evs)
	if handoff {
		w.poke(true)
	}
	return w.topic.LastID() != before
}

// readTail reads what one session gained, publishing batch by batch while
// a backlog lasts, and appends the last batch's events (and a status
// change) to evs.
func (w *workspace) readTail(t *tail, evs []event.Event) []event.Event {
	for {
		n := len(evs)
		t.beforeRead()
		res, err := w.readSome(t, &evs)
		if err == nil {
			m := len(evs)
			evs = t.readSubagents(w, evs, t.coldSubs)
			t.stamp(evs, m)
			t.coldSubs, t.subsSince = false, time.Time{}
		}
		m := len(evs)
		evs = t.parser.Flush(evs)
		t.stamp(evs, m)
		evs = t.statusChange(evs, len(evs) > n)
		if !res.More {
			return evs
		}
		if w.here {
			w.backlog = true // a runner reads on (workHere)
			return evs
		}
		w.publish(evs) // a backlog: release this batch before reading on
		evs = w.evs[:0]
	}
}

// feed hands one line of t's record to its parser and returns out with
// the line's events, stamped; a line the parser cannot read counts in
// bad.
func (w *workspace) feed(t *tail, line []byte, out []event.Event, bad *int) []event.Event {
	n := len(out)
	out, err := t.parser.Line(line, out)
	if err != nil {
		*bad++
	}
	t.stamp(out, n)
	w.onUser(out, n)
	return out
}

// readSome is read, of at most hereBudget bytes on the watcher's
// goroutine.
func (w *workspace) readSome(t *tail, evs *[]event.Event) (linefile.ReadResult, error) {
	if !w.here || t.rows != nil || (t.reader.Budget > 0 && t.reader.Budget <= hereBudget) {
		return w.read(t, evs)
	}
	budget := t.reader.Budget
	t.reader.Budget = hereBudget
	defer func() { t.reader.Budget = budget }()
	return w.read(t, evs)
}

// read hands every new complete line of t's transcript to its parser.
func (w *workspace) read(t *tail, evs *[]event.Event) (linefile.ReadResult, error) {
	if t.rows != nil {
		return w.readRows(t, evs)
	}
	var bad int
	out := *evs
	start := len(out)
	t.reader.Unchanged = t.unchanged(w.eng, w.readAt)
	res, err := t.reader.Read(func(line []byte, _ int64) { out = w.feed(t, line, out, &bad) })
	*evs = out
	if res.Reset {
		w.eng.log.Info().Str("workspace", w.id).Str("path", t.reader.Path).Msg("transcript shrank or was replaced; reading it again from the start")
		if p, perr := w.eng.newParser(t.agent, nil); perr == nil {
			t.parser = p
		}
		t.rewound = true
	}
	if err != nil {
		w.warnOnce("read", "read transcript", err)
		w.relook.Store(true) // deleted or replaced: list the sessions again
	}
	if bad > 0 || res.Oversized > 0 {
		w.eng.log.Warn().Str("workspace", w.id).Str("path", t.reader.Path).
			Int("malformed", bad).Int("oversized", res.Oversized).Msg("skipped transcript lines")
	}
	t.malformed += bad
	t.oversized += res.Oversized
	if len(out) > start || res.Lines > 0 {
		// What the reader's own stat found: no second stat per line. A
		// reader told Unchanged took none: its lines came with a file
		// event just now, and when they were read stands for the file's
		// time (as for rows, readRows), which is all "most recently
		// active" needs; how long the record has been quiet is the
		// file's own (lastMod).
		t.liveMod, t.liveSize, t.liveRead = res.ModTime, res.Size, res.ModTime.IsZero()
		if t.liveRead {
			t.liveMod = w.readAt
		}
	}
	return res, err
}

// onUser hands the user events from out[n:] to Config.OnUser.
func (w *workspace) onUser(out []event.Event, n int) {
	if on := w.eng.cfg.OnUser; on != nil {
		for i := n; i < len(out); i++ {
			if out[i].Type == event.User {
				on(w.id, &out[i])
			}
		}
	}
}

// sorted returns the tails in a stable order (by session id), so events
// read in one sync are published in the same order every time.
//
// A workspace's usual one session has no keys to sort, and comes in
// w.one: a slice made for it was an allocation a line. Its callers only
// range over what it returns, which reads the one element before the
// loop's body can call sorted again.
func (w *workspace) sorted() []*tail {
	if w.onlyTail() != nil {
		return w.one[:]
	}
	ids := slices.Sorted(maps.Keys(w.tails))
	out := make([]*tail, len(ids))
	for i, id := range ids {
		out[i] = w.tails[id]
	}
	return out
}

// publish sends evs to the topic, journaled with every session's mark
// (or a delta that stands for it), then publishes a fresh snapshot.
func (w *workspace) publish(evs []event.Event) {
	if len(evs) > 0 && w.unlisted() {
		// A client that hears of a new session asks for it by id: it
		// must be listed before its first event goes out.
		w.snapshot()
	}
	// The parsers' states are encoded only when the mark is written
	// whole: most lines journal a delta, and encoding kilobytes of state
	// for each was the most a line cost the workspace.
	c := w.scratchMark()
	d, whole := w.delta(c)
	switch {
	case whole:
		w.scratchWithParsers(c)
		raw, err := json.Marshal(c)
		if err != nil {
			w.warnOnce("resume", "encode mark", err)
			raw = nil
		}
		res := w.topic.Resume()
		if raw != nil && string(raw) == string(res.Mark) && len(res.Deltas) == 0 && len(evs) == 0 {
			w.journaledAs(c, false) // the journal holds it already (an idle restart writes nothing)
			break
		}
		if raw != nil || len(evs) > 0 {
			w.publishItems(w.topic.Publish(evs, raw))
			if raw != nil {
				w.journaledAs(c, true)
			}
		}
	case len(d.Sessions) == 0 && len(evs) == 0:
		// Nothing moved: the delta covers every field of the mark.
	default:
		// Its own encoder, into the buffer the last line's used:
		// json.Marshal would check and compact its output again.
		draw, err := d.appendJSON(w.pub.json[:0])
		if err != nil { // cannot happen for these types; the whole mark says it too
			w.warnOnce("resume", "encode mark delta", err)
			draw = nil
		} else {
			w.pub.json = draw
		}
		// The whole mark is encoded only if the journal writes it: most
		// lines carry the delta alone. PublishLazy makes it, if at all,
		// before it returns, while the parsers are still the batch's.
		w.publishItems(w.topic.PublishLazy(evs, w.wholeMarkFunc(), draw))
		w.journaledSessions(c, draw == nil) // delta found c's shape the journal's
	}
	w.evs = reuse(evs)
	w.pub.release()
	// Readers hear of what they show changing (a status, a session
	// coming or going), not of every line: waking each of them for each
	// line an agent writes cost a thread wake-up a line. Their events
	// they read from the topics.
	if w.snapshot() {
		w.eng.changed()
	}
}

// onlyTail is the tail of the workspace's one session, nil unless it
// has one, held in w.one (nil then too: no tail let go stays held). It
// is found by its id, not by walking w.tails: the session walks done
// for every line (sorted, working, unlisted) were their biggest part.
func (w *workspace) onlyTail() *tail {
	if len(w.tails) != 1 {
		w.one[0] = nil
		return nil
	}
	if t := w.one[0]; t != nil && w.tails[t.id] == t {
		return t
	}
	for _, t := range w.tails {
		w.one[0] = t
	}
	return w.one[0]
}

// unlisted reports whether some session followed is not in the snapshot
// readers see.
func (w *workspace) unlisted() bool {
	s := w.snap.Load()
	if s == nil {
		return len(w.tails) > 0
	}
	if t := w.onlyTail(); t != nil {
		return !listed(s, t.id)
	}
	for id := range w.tails {
		if !listed(s, id) {
			return true
		}
	}
	return false
}

// listed reports whether s lists the session id as read.
func listed(s *snapshot, id string) bool {
	return slices.ContainsFunc(s.sessions, func(si SessionInfo) bool { return si.SessionID == id && si.Streamed })
}

// publishItems notes the ids the topic gave each session's events.
func (w *workspace) publishItems(items []stream.Item, err error) {
	if err != nil {
		w.warnOnce("publish", "journal events", err)
	}
	for _, it := range items {
		if t := w.tails[it.SessionID]; t != nil {
			t.lastID = it.ID
		}
	}
}

func (w *workspace) mark() mark {
	c := w.markWithout()
	w.withParsers(c)
	return c
}

// markWithout is the mark but for the sessions' parser states
// (withParsers adds them).
func (w *workspace) markWithout() mark {
	// Retired is copied: the mark may be encoded after the workspace
	// has moved on (see publish).
	c := mark{Sessions: make(map[string]tailMark, len(w.tails))}
	if len(w.retired) > 0 {
		c.Retired = maps.Clone(w.retired)
	}
	for id, t := range w.tails {
		c.Sessions[id] = t.markWithout()
	}
	return c
}

// withParsers adds the sessions' parser states, as they are now, to a
// mark made by markWithout.
func (w *workspace) withParsers(c mark) {
	for id, tc := range c.Sessions {
		if t := w.tails[id]; t != nil && tc.Parser == nil {
			tc.Parser, _ = t.parser.Save()
			c.Sessions[id] = tc
		}
	}
}

// snapshot publishes the workspace's state for readers; it reports whether
// anything a reader shows changed.
func (w *workspace) snapshot() bool {
	s := w.newSnapshot()
	s.ws, s.readAt, s.listedAt = w.ws, w.readAt, w.listedAt
	metaByID := make(map[string]discover.Session, len(w.ws.Sessions))
	for _, m := range w.ws.Sessions {
		metaByID[m.ID] = m
	}
	for _, t := range w.tails {
		if t.rows == nil { // a database's rows wake it (rows.go), not the sweep
			s.paths = append(s.paths, t.reader.Path)
			s.read = append(s.read, t.reader.Seen())
		}
		s.subDirs = s.subDirs || len(t.subs) > 0
		s.malformed += t.malformed
		s.oversized += t.oversized
		m := t.meta
		delete(metaByID, t.id)
		blocked := ""
		if t.rows != nil {
			blocked = w.eng.agents.rowBlocks(t.agent, t.source)
		}
		s.sessions = append(s.sessions, SessionInfo{
			MessagesBlocked: blocked,
			SessionID:       t.id, ConductorID: m.ConductorID, Agent: t.agent, Label: w.eng.agents.label(t.agent), Source: t.source, Title: m.Title,
			Status: cmpOr(t.status, event.StateIdle), Reason: t.reason, StatusSince: t.since,
			Active: m.Active, Unread: m.Unread, PID: w.pidOf(t.id, m), Model: m.Model, Version: t.parser.Version(),
			Transcript: t.reader.Path, Streamed: true, LastEventID: t.lastID, LastActivity: latest(t.liveMod, m.UpdatedAt),
		})
	}
	// Sessions of an agent the bridge cannot read (or whose record is not
	// on disk yet) are still listed, with Conductor's status.
	for _, m := range w.ws.Sessions {
		if _, ok := metaByID[m.ID]; !ok {
			continue
		}
		st, reason := conductorState(m.ConductorStatus)
		s.sessions = append(s.sessions, SessionInfo{
			SessionID: m.ID, ConductorID: m.ConductorID, Agent: m.Agent, Label: w.eng.agents.label(m.Agent), Title: m.Title, Status: st, Reason: reason,
			Active: m.Active, Unread: m.Unread, PID: w.pidOf(m.ID, m), Model: m.Model, LastActivity: m.UpdatedAt,
			MessagesBlocked: w.eng.agents.unreadBlocks(m.Agent),
		})
	}
	slices.SortFunc(s.sessions, func(a, b SessionInfo) int {
		if a.Active != b.Active {
			if a.Active {
				return -1
			}
			return 1
		}
		if c := b.LastActivity.Compare(a.LastActivity); c != 0 {
			return c
		}
		return strings.Compare(a.SessionID, b.SessionID)
	})
	old := w.storeSnapshot(s)
	if w.eng.sweepIdle.Load() && s.working() {
		// A session at work while the sweep has backed off: it comes back
		// to its base rate (reaps, quiet spells), whether or not a file
		// event told it so. A workspace found by a scan after the sweep
		// last looked, its session already at work, told nothing: its
		// event came while the sweep was not backed off yet.
		w.eng.active()
	}
	return old == nil || !sameView(old, s)
}

// newSnapshot returns an empty snapshot with room for the workspace's
// lists. A live agent's every line makes a new one, so for a workspace
// following one session, most of them, its lists share the snapshot's
// allocation (snapshotOfOne) rather than taking three more.
func (w *workspace) newSnapshot() *snapshot {
	if len(w.tails) != 1 {
		return &snapshot{}
	}
	one := &snapshotOfOne{}
	s := &one.snapshot
	s.sessions, s.paths, s.read = one.session[:0], one.path[:0], one.read[:0]
	return s
}

// snapshotOfOne is a snapshot and the room its lists take for one
// session (a session Conductor lists but the bridge does not read
// besides it moves the list out).
type snapshotOfOne struct {
	snapshot
	session [1]SessionInfo
	path    [1]string
	read    [1]int64
}

// working reports whether a session of s is at work.
func (s *snapshot) working() bool {
	for _, si := range s.sessions {
		if si.Status == event.StateWorking {
			return true
		}
	}
	return false
}

// reuse returns evs emptied for the next batch. The events are cleared,
// so their text is not kept alive by an idle workspace (the topic keeps
// only their JSON), and a backlog's large batch is let go rather than
// held by every workspace that once had one.
func reuse(evs []event.Event) []event.Event {
	if cap(evs) > maxKeptBatch {
		return nil
	}
	clear(evs)
	return evs[:0]
}

// maxKeptBatch is the most events a workspace's reused batch holds: an
// event is 400-odd bytes, and a thousand idle workspaces each keep one.
const maxKeptBatch = 4

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sameView reports whether two snapshots show the same to a reader (the
// tray redraws on a change, Codex delivery looks again): every field of
// every session but the two that move with each line read, its last
// event id and its last activity, and the sessions' order.
func sameView(a, b *snapshot) bool {
	if a.ws.PID != b.ws.PID || a.ws.Branch != b.ws.Branch || a.ws.DisplayName != b.ws.DisplayName || len(a.sessions) != len(b.sessions) {
		return false
	}
	for i := range a.sessions {
		x, y := a.sessions[i], b.sessions[i]
		x.LastEventID, y.LastEventID = 0, 0
		x.LastActivity, y.LastActivity = time.Time{}, time.Time{}
		if !x.StatusSince.Equal(y.StatusSince) {
			return false
		}
		x.StatusSince, y.StatusSince = time.Time{}, time.Time{}
		if x != y {
			return false
		}
	}
	return true
}

// conductorState maps sessions.status to the bridge's states, for a
// session whose record the bridge does not read.
func conductorState(s string) (string, string) {
	switch s {
	case "working":
		return event.StateWorking, ""
	case "needs_user_input":
		return event.StateNeedsInput, "question"
	case "needs_plan_response":
		return event.StateNeedsInput, "plan"
	case "error":
		return event.StateError, ""
	}
	return event.StateIdle, ""
}

// armQuiet starts the quiet-spell timer while some session's turn end can
// only be inferred (versions that write no stop reason): QuietAfter from
// now, or for a turn held for its Stop hook (held) until StopWait after
// its record last changed.
func (w *workspace) armQuiet() {
	wait, now := time.Duration(-1), time.Now()
	for _, t := range w.tails {
		if !t.parser.Unsure() {
			continue
		}
		d := w.eng.cfg.QuietAfter
		if _, ok := held(t); ok {
			d = max(d, w.eng.cfg.StopWait-now.Sub(t.liveMod))
		}
		if wait < 0 || d < wait {
			wait = d
		}
	}
	if wait >= 0 {
		w.quiet.Reset(wait)
	}
}

// held returns t's parser when its open turn waits for the Stop hook's
// word rather than a quiet spell (agent.StopHooked's Held). Its record's
// last change is then known (one stat for a session resumed from the
// journal whose record gained nothing since).
func held(t *tail) (agent.StopHooked, bool) {
	h, ok := t.parser.(agent.StopHooked)
	if !ok || !h.Held() {
		return nil, false
	}
	if t.liveMod.IsZero() {
		t.statFile()
	}
	return h, true
}

// warnOnce logs one line per kind of trouble and workspace, not one per poll.
func (w *workspace) warnOnce(kind, what string, err error) {
	key := kind + ":" + err.Error()
	if w.warned == nil {
		w.warned = make(map[string]bool)
	}
	if w.warned[key] {
		return
	}
	w.warned[key] = true
	w.eng.log.Warn().Err(err).Str("workspace", w.id).Msg(what)
}

func sessionID(path string) string {
	base := filepath.Base(path)
	return base[:len(base)-len(filepath.Ext(base))]
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

func fileSize(path string) int64 {
	if info, err := os.Stat(path); err == nil {
		return info.Size()
	}
	return -1
}

// watchTail watches a record in dated folders being followed: it lives
// in a dated folder of its agent's, not in the workspace's record folder
// (which the engine watches for the per-directory agent's).
func (w *workspace) watchTail(t *tail) {
	if _, ok := w.eng.agents.named(t.agent).(agent.Dated); ok {
		w.eng.watchDatedFile(t.reader.Path)
	}
}
