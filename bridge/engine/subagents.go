package engine

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/transcript"
)

// Claude Code 2.1 writes each subagent's (Task/Agent) transcript to
// <project>/<session id>/subagents/agent-*.jsonl rather than into the
// session's own file. The follower tails those of the live session too, so
// the stream shows what subagents do, marked as sidechain events. Only
// Claude sessions have them.

// subTail follows one subagent transcript.
type subTail struct {
	reader transcript.Reader
	parser transcript.Parser
}

// subCursor is a subagent transcript's resume point in the journal.
type subCursor struct {
	Offset int64            `json:"offset"`
	Parser transcript.State `json:"parser"`
}

// subagentDir is where the subagents of the session in path write.
func subagentDir(path string) string {
	return filepath.Join(filepath.Dir(path), sessionID(path), "subagents")
}

// readSubagents appends the events of the live session's subagents. The
// folder is listed only when its modification time changed: a new
// subagent adds a file, an existing one only grows.
func (t *tail) readSubagents(w *workspace, evs []event.Event, cold bool) []event.Event {
	if t.reader.Path == "" || !readable(t.agent) {
		return evs
	}
	f := t
	dir := subagentDir(t.reader.Path)
	// A folder modified within the last two seconds is listed again even
	// if its time did not change: coarse timestamps (1 s on HFS+) can hide
	// a second subagent started in the same tick.
	if info, err := os.Stat(dir); err == nil && (!info.ModTime().Equal(f.subDirMod) || time.Since(info.ModTime()) < 2*time.Second) {
		f.subDirMod = info.ModTime()
		w.eng.watchSubagents(dir)
		names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, p := range names {
			if _, ok := f.subs[p]; ok {
				continue
			}
			st := &subTail{reader: transcript.Reader{Path: p}}
			if info, err := os.Stat(p); err == nil && cold && info.Size() > w.eng.cfg.TailBytes {
				st.reader.SkipTo(info.Size() - w.eng.cfg.TailBytes)
			}
			if f.subs == nil {
				f.subs = make(map[string]*subTail)
			}
			f.subs[p] = st
		}
	}
	paths := make([]string, 0, len(f.subs))
	for p := range f.subs {
		paths = append(paths, p)
	}
	sort.Strings(paths) // a stable order for events read in one batch
	for _, p := range paths {
		st := f.subs[p]
		n := len(evs)
		_, err := st.reader.Read(func(line []byte, _ int64) {
			evs, _ = st.parser.Line(line, evs)
		})
		if err != nil {
			delete(f.subs, p) // removed: nothing more will come
			continue
		}
		for i := n; i < len(evs); i++ {
			evs[i].Sidechain = true // every line of a subagent file is, whatever it says
		}
		// A subagent's events belong to no turn of their own: drop the
		// turn_complete its parser would infer and keep its state small.
		kept := evs[:n]
		for _, e := range evs[n:] {
			if e.Type != event.TurnComplete {
				kept = append(kept, e)
			}
		}
		evs = kept
		st.parser.State.Turn = nil
	}
	return evs
}

// subCursors returns the subagent resume points for the journal.
func (f *tail) subCursors() map[string]subCursor {
	if len(f.subs) == 0 {
		return nil
	}
	out := make(map[string]subCursor, len(f.subs))
	for p, st := range f.subs {
		out[p] = subCursor{Offset: st.reader.Offset, Parser: st.parser.State}
	}
	return out
}

// restoreSubs resumes subagent tails from the journal.
func (f *tail) restoreSubs(cs map[string]subCursor) {
	for p, c := range cs {
		if !strings.HasPrefix(p, subagentDir(f.reader.Path)) {
			continue
		}
		if f.subs == nil {
			f.subs = make(map[string]*subTail)
		}
		f.subs[p] = &subTail{reader: transcript.Reader{Path: p, Offset: c.Offset}, parser: transcript.Parser{State: c.Parser}}
	}
	f.subDirMod = time.Time{}
}
