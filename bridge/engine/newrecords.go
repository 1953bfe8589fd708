package engine

import (
	"path/filepath"
	"time"

	"conductorbridge/bridge/agent"
)

// A record no workspace follows yet is most often a session just born:
// Claude Code makes its transcript, Codex its rollout, and only a scan can
// tell which workspace it belongs to. A scan can place it only once the
// record says where it runs (Claude's cwd, Codex's session_meta line), and
// the agent writes that after creating the file, often after the scan its
// creation asked for has run. So every event on such a record asks for a
// scan until the record can be placed and a scan has begun since; only
// then is it a record that belongs to nothing (a folder that is gone, a
// session past the active window), and its writes ask at most once per
// recordAskEvery. A creation always asks.

// newRecord is what the watch loop knows of one unfollowed record.
type newRecord struct {
	placeable time.Time // when the record was first seen saying where it runs (zero: not yet)
	asked     time.Time // the last ask for a scan
}

// recordAskEvery is how often writes to a record already found to belong
// to nothing may ask for a scan: a busy run outside every workspace writes
// many lines a second, and one scan finds it.
const recordAskEvery = 10 * time.Second

// maxNewRecords bounds what the watch loop remembers; forgetting only
// makes the next event ask once more.
const maxNewRecords = 256

// askForRecord reports whether an event on a record no workspace follows
// should ask for a scan. Called from the watch loop only.
func (e *Engine) askForRecord(path string, created bool) bool {
	now := time.Now()
	if e.newRecords == nil || len(e.newRecords) > maxNewRecords {
		e.newRecords = make(map[string]*newRecord)
	}
	r := e.newRecords[path]
	if r == nil || created {
		r = &newRecord{}
		e.newRecords[path] = r
	}
	if r.placeable.IsZero() && e.placeable(path) {
		r.placeable = now
	}
	if !r.placeable.IsZero() && e.scannedSince(r.placeable) && now.Sub(r.asked) < recordAskEvery {
		return false
	}
	r.asked = now
	return true
}

// placeable reports whether a record says where its session runs, so a
// scan can place it (its agent's word, agent.Placer; one that does not
// say is placeable as it is made).
func (e *Engine) placeable(path string) bool {
	a := e.agents.of(path)
	p, ok := a.(agent.Placer)
	return a != nil && (!ok || p.Placeable(path))
}

// scannedSince reports whether a scan began at or after t.
func (e *Engine) scannedSince(t time.Time) bool {
	return e.scanBegan.Load() >= t.UnixNano()
}

// projectRecord reports whether path is a session's own record in a
// folder under the per-directory agent's root (for Claude Code a
// top-level transcript in a project folder: not a subagent's, not 2.0's
// agent-*.jsonl beside it).
func (e *Engine) projectRecord(path string) bool {
	if e.projects == "" || filepath.Dir(filepath.Dir(path)) != e.projects {
		return false
	}
	a := e.agents.named(e.projectsSource)
	if a == nil || !a.Owns(path) {
		return false
	}
	if n, ok := a.(agent.Nested); ok {
		if glob := n.BesideGlob(path); glob != "" {
			if beside, _ := filepath.Match(glob, path); beside {
				return false
			}
		}
	}
	return true
}
