package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
)

// An agent whose sessions write each subagent's record to a file of its
// own (agent.Nested: Claude Code 2.1 in <session>/subagents/, 2.0 beside
// the session's record) has the follower tail those of the live session
// too, so the stream shows what subagents do, marked as sidechain events,
// and the session's turn counts what they spent: the person paid for it.
// The agent says where the files are and parses them (agent.SubParser);
// the engine finds, reads and journals them.

// subTail follows one subagent's file.
type subTail struct {
	reader linefile.Reader
	parser agent.SubParser
	grew   time.Time // when a read last found more of it
	// uncounted is set for a file first seen on a cold start: what its
	// tail says was spent in turns long over, and must not land in the
	// next one. Its events still show; it counts from its next read on.
	uncounted bool
}

// subIdle is how long a subagent's file stays unchanged, with no tool
// call open, before the journal stops carrying its own mark: a session
// may start hundreds of subagents, and the mark is journaled with every
// batch. The journal keeps instead one time (tailMark.SubsDone): a
// subagent file last changed before it was read to its end.
const subIdle = time.Minute

// subMark is a subagent file's resume point in the journal.
type subMark struct {
	Offset int64 `json:"offset"`
	// Parser is what the subagent parser's Save returned when the mark
	// was made, as the session's is, so that a mark encoded later (see
	// stream.Topic.PublishLazy) still says this batch.
	Parser json.RawMessage `json:"parser"`
}

// subGlobs are where a session's subagent files are, worked out from its
// record's path once rather than for every line read.
type subGlobs struct {
	done   bool   // worked out (bind starts again)
	record string // for the record at this path
	sub    string // the agent's SubagentGlob, "" for an agent with none
	subDir string // its folder
	beside string // the agent's BesideGlob, "" for an agent with none
	dir    string // the record's folder, where beside files are
}

// globs returns the session's subGlobs for its record as it is now.
func (t *tail) globs() *subGlobs {
	g := &t.subGlobs
	if g.done && g.record == t.reader.Path {
		return g
	}
	*g = subGlobs{done: true, record: t.reader.Path}
	if t.nest == nil {
		return g
	}
	if t.reader.Path != "" {
		g.sub = t.nest.SubagentGlob(t.reader.Path)
	}
	if g.sub != "" {
		g.subDir = filepath.Dir(g.sub)
	}
	g.beside = t.nest.BesideGlob(t.reader.Path)
	g.dir = filepath.Dir(t.reader.Path)
	return g
}

// subagentGlob is the pattern of the files the subagents of the session
// write in a folder of their own, "" for an agent whose subagents write
// none.
func (t *tail) subagentGlob() string {
	return t.globs().sub
}

// isSubagent reports whether p is one of those files.
func (t *tail) isSubagent(p string) bool {
	glob := t.subagentGlob()
	ok, _ := filepath.Match(glob, p)
	return glob != "" && ok
}

// subagentDir is the folder of those files, "" if none.
func (t *tail) subagentDir() string {
	return t.globs().subDir
}

// readSubagents appends the events of the live session's subagents and
// counts what they spent into the session's open turn. A folder is listed
// only when its modification time changed: a new subagent adds a file, an
// existing one only grows.
func (t *tail) readSubagents(w *workspace, evs []event.Event, cold bool) []event.Event {
	g := t.globs()
	if g.sub == "" {
		return evs
	}
	f := t
	gen, look := t.look(w)
	if look && dirChanged(g.subDir, &f.subDirMod) {
		w.eng.watchSubagents(g.subDir)
		names, _ := filepath.Glob(g.sub)
		for _, p := range names {
			if _, ok := f.subs[p]; !ok {
				f.addSub(w, p, cold)
			}
		}
	}
	f.findBeside(w, cold, look)
	if look {
		t.looked(w, gen)
	}
	// subOrder: a stable order for events read in one batch.
	for i := 0; i < len(f.subOrder); {
		p := f.subOrder[i]
		var err error
		if evs, err = f.subs[p].read(f.parser, evs); err != nil {
			f.dropSub(p) // removed: nothing more will come
			continue
		}
		i++
	}
	return evs
}

// setSub follows the subagent file p with st, keeping subOrder, the
// paths of subs in order.
func (f *tail) setSub(p string, st *subTail) {
	if f.subs == nil {
		f.subs = make(map[string]*subTail)
	}
	f.subs[p] = st
	if i, found := slices.BinarySearch(f.subOrder, p); !found {
		f.subOrder = slices.Insert(f.subOrder, i, p)
	}
}

// dropSub stops following the subagent file p.
func (f *tail) dropSub(p string) {
	delete(f.subs, p)
	if i, found := slices.BinarySearch(f.subOrder, p); found {
		f.subOrder = slices.Delete(f.subOrder, i, i+1)
	}
}

// read appends what a subagent file gained and counts what it spent into
// session, the session's parser. A restart replays the journaled bytes
// through it again (replay), so its state after a read depends on the
// bytes alone.
func (st *subTail) read(session agent.Parser, evs []event.Event) ([]event.Event, error) {
	if st.uncounted {
		session = nil // read, but counted nowhere
		st.uncounted = false
	}
	// Set before every read: the session's parser is replaced when its
	// record is read again from the start.
	st.parser.CountInto(session)
	res, err := st.reader.Read(func(line []byte, _ int64) {
		evs, _ = st.parser.Line(line, evs)
	})
	if res.Lines > 0 {
		st.grew = time.Now()
	}
	return evs, err
}

// addSub starts following the subagent file p of the session.
func (f *tail) addSub(w *workspace, p string, cold bool) {
	parser, err := f.nest.NewSubParser(nil)
	if err != nil {
		return // cannot happen with no saved state
	}
	st := &subTail{reader: linefile.Reader{Path: p}, parser: parser, grew: time.Now(), uncounted: cold}
	if info, err := os.Stat(p); err == nil {
		switch {
		case !f.subsDone.IsZero() && !info.ModTime().After(f.subsDone):
			st.reader.SkipTo(info.Size()) // read before the restart, journaled as done
		case !f.subsSince.IsZero():
			// A session caught up (catchup.go): what its subagents
			// wrote before was published then, or is history, spent
			// in turns long over. A subagent of the turn taken since
			// is read from its start, and counts in it.
			from := info.Size()
			if changedWhileDown(info, f.subsSince) {
				from = catchUpFrom(p, info.Size(), f.subsSince)
			}
			st.reader.SkipTo(from)
		case cold && info.Size() > w.eng.cfg.TailBytes:
			st.reader.SkipTo(info.Size() - w.eng.cfg.TailBytes)
		}
	}
	f.setSub(p, st)
}

// subMarks returns the subagent resume points for the journal: those
// of subagents still at work, and the time before which every other
// subagent file was read to its end. Its size follows the subagents at
// work, not the session's length.
func (f *tail) subMarks() (map[string]subMark, time.Time) {
	if len(f.subs) == 0 {
		return nil, time.Time{}
	}
	out := make(map[string]subMark)
	var done time.Time
	idle := time.Now().Add(-subIdle)
	for p, st := range f.subs {
		if !st.parser.Busy() && st.grew.Before(idle) {
			// Its last change came before its last read: the newest
			// such read bounds them all, and stays put between batches,
			// so an idle workspace journals nothing new.
			if st.grew.After(done) {
				done = st.grew
			}
			continue
		}
		raw, err := st.parser.Save()
		if err != nil {
			continue // cannot be encoded: the file is read again from its start
		}
		out[p] = subMark{Offset: st.reader.Offset, Parser: raw}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, done
}

// restoreSubs resumes subagent tails from the journal; files it does not
// name and last changed before done were read to their end.
func (f *tail) restoreSubs(cs map[string]subMark, done time.Time) {
	f.subsDone = done
	for p, c := range cs {
		if !f.isSubagent(p) && !f.isBeside(p) {
			continue
		}
		parser, err := f.nest.NewSubParser(c.Parser)
		if err != nil {
			continue // unreadable: the file is read again from its start
		}
		f.setSub(p, &subTail{reader: linefile.Reader{Path: p, Offset: c.Offset}, parser: parser, grew: time.Now()})
	}
	f.relist()
}

// look reports whether the session's folders must be looked at for new
// subagent files, and the folder generation to note once they have been.
// Every line a busy agent writes is read, and looking is two stats (the
// subagent folder, usually missing, and the project folder): they are
// spared while the folders are watched and no file event but a write
// came since the last look. A folder made inside the session's own one
// would be no event, so that must not exist or its subagent folder be
// watched itself.
func (t *tail) look(w *workspace) (gen uint64, look bool) {
	gen = w.eng.folders.Load() // before looking: an event from now on means looking again
	return gen, !t.quiet || gen != t.lookedAt
}

// looked notes a look at generation gen, and whether the folders are
// watched such that the next may wait for a file event. The session's
// own folder (tool results; the subagent folder's parent) is watched once
// it exists, so that the subagent folder's making is an event too.
func (t *tail) looked(w *workspace, gen uint64) {
	e := w.eng
	e.looks.Add(1)
	t.lookedAt = gen
	if !t.lookedOnce {
		// Most sessions are read once (a cold start's thousands, idle
		// since): only one read again is worth the check.
		t.lookedOnce, t.quiet = true, false
		return
	}
	t.quiet = *e.cfg.WatchDirs && e.isWatched(filepath.Dir(t.reader.Path))
	if !t.quiet {
		return
	}
	sub := t.subagentDir()
	if sub == "" {
		return
	}
	own := filepath.Dir(sub)
	switch {
	case e.isWatched(sub), !isDir(own):
	case e.isWatched(own):
	default:
		e.watch(own)
		if t.quiet = e.isWatched(own); t.quiet && isDir(sub) {
			// Made between the look and the watch: no event will say so.
			t.quiet = false
			w.poke(false)
		}
	}
}

// relist has the session's folders listed at the next read.
func (t *tail) relist() {
	t.subDirMod, t.quiet = time.Time{}, false
}

// dirChanged reports whether dir should be listed again: its modification
// time moved since *last (which it updates), or is within mtimeSlack of
// now, since coarse timestamps (1 s on HFS+) can hide a second file made
// in the same tick.
func dirChanged(dir string, last *time.Time) bool {
	info, err := os.Stat(dir)
	if err != nil {
		return false
	}
	mod := info.ModTime()
	if mod.Equal(*last) && time.Since(mod) >= mtimeSlack {
		return false
	}
	*last = mod
	return true
}
