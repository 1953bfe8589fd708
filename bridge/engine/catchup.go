package engine

import (
	"os"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/linefile"
)

// Catching up after downtime. A restart resumes every session its journal
// knows from the journaled offset. A session it does not know (a new
// Conductor tab, a `claude` or `codex` run started while the bridge was
// quit or crashed) is, at a cold start, read from its last ColdTailBytes
// as history — unless its record changed after the bridge last wrote its
// journal (stream.Hub.LastWritten): then nobody saw what it gained, and it
// is read from where it stood then and published as if the bridge had
// been running; its subagents' files likewise, from where each stood then
// (addSub), so an old subagent is neither shown again nor counted in the
// new turn. Records untouched since are history as before, so a cold
// start of idle workspaces still reads only tails.

// catchUpLimit bounds how far back a record is searched for where it stood:
// a session that wrote more than this while the bridge was down is read
// from this far back (its catch-up is published batch by batch).
const catchUpLimit = 16 << 20

// catchUpSlack covers the moment between a record's write and the journal
// write that recorded reading it, and coarse modification times.
const catchUpSlack = 2 * time.Second

// downtime is the moment after which what a record gained is news nobody
// has seen:
//   - in the first read of a workspace found by the first scan, when the
//     bridge last wrote its journal in an earlier run (zero in a first
//     start ever: history is read as tails);
//   - in the first read of a workspace found later in this run (a plain
//     project whose first session just placed it, a new Conductor
//     workspace), when this run started, or the earlier run's last write:
//     a session that created its workspace is read from its start, however
//     late the scan that placed it ran;
//   - after a workspace's first read, when this run began following it: a
//     session found later (its folder's event missed, a slow scan) is read
//     from where it stood then, never as a tail of history.
func (w *workspace) downtime() time.Time {
	if w.caughtUp {
		return w.followedAt
	}
	var last time.Time
	if w.eng.cfg.Hub != nil {
		last = w.eng.cfg.Hub.LastWritten()
	}
	if w.initial || !last.IsZero() {
		return last
	}
	return w.eng.started
}

// changedWhileDown reports whether a record was written after since.
func changedWhileDown(info os.FileInfo, since time.Time) bool {
	return !since.IsZero() && info.ModTime().After(since.Add(-catchUpSlack))
}

// catchUpFrom is where a record stood at since: the end of its last line
// stamped at or before since (both agents stamp every line with its
// time), 0 for a record whose every line is newer (it began since). Only
// its last catchUpLimit bytes are searched.
func catchUpFrom(path string, size int64, since time.Time) int64 {
	start := max(0, size-catchUpLimit)
	r := linefile.Reader{Path: path, Budget: 1 << 20}
	r.SkipTo(start)
	from := start
	var p fastjson.Parser
	cut := since.Add(-catchUpSlack)
	for {
		res, err := r.Read(func(line []byte, end int64) {
			v, err := p.ParseBytes(line)
			if err != nil {
				return
			}
			ts, err := time.Parse(time.RFC3339Nano, string(v.GetStringBytes("timestamp")))
			if err == nil && !ts.After(cut) {
				from = end
			}
		})
		if err != nil || !res.More {
			return from
		}
	}
}
