package engine

import (
	"path/filepath"
	"time"
)

// besideAgents is what a session knows of the subagent files its agent
// writes beside the records of its folder (agent.Nested's BesideGlob:
// Claude Code 2.0's agent-*.jsonl). The folder holds every session's, so
// the agent tells whose each file is (BesideSession), once per file.
type besideAgents struct {
	dirMod  time.Time
	pending map[string]bool // whose it is cannot be told yet: asked again on each read
	foreign map[string]bool // another session's
}

// isBeside reports whether p is a subagent file beside the session's
// record, by the agent's pattern.
func (f *tail) isBeside(p string) bool {
	glob := f.besideGlob()
	ok, _ := filepath.Match(glob, p)
	return glob != "" && ok
}

// besideGlob is the agent's pattern of subagent files beside the
// session's record, "" if none.
func (f *tail) besideGlob() string {
	return f.globs().beside
}

// findBeside adds the session's subagent files beside its record. With
// look, the folder is listed when its modification time changed (or
// within two seconds of it, for coarse clocks), like the subagents'
// own folder.
func (f *tail) findBeside(w *workspace, cold, look bool) {
	g := f.globs()
	if g.beside == "" {
		return
	}
	if f.beside == nil {
		f.beside = &besideAgents{}
	}
	b := f.beside
	if look && dirChanged(g.dir, &b.dirMod) {
		names, _ := filepath.Glob(g.beside)
		for _, p := range names {
			if _, ok := f.subs[p]; ok || b.foreign[p] {
				continue
			}
			if b.pending == nil {
				b.pending = make(map[string]bool)
			}
			b.pending[p] = true
		}
	}
	if len(b.pending) == 0 {
		return // most reads: no file waits to be told whose it is
	}
	for p := range b.pending {
		sid, decided := f.nest.BesideSession(p)
		if !decided {
			continue
		}
		delete(b.pending, p)
		if sid != f.id {
			if b.foreign == nil {
				b.foreign = make(map[string]bool)
			}
			b.foreign[p] = true
			continue
		}
		f.addSub(w, p, cold)
	}
}
