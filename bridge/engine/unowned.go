package engine

import "time"

// ProcessWitness is a Scanner that reads the whole process table with
// each scan (the app's agentScanner), and so can tell that no live agent
// process can be writing a session: none names it, none runs in or below
// its directory or names that directory, none is a server whose sessions
// may be anywhere. An open turn no process can be writing ends as a dead
// agent's does, after QuietAfter of quiet, though its agent was never
// seen alive (already dead when the bridge started, or when its session
// was found): only a record the table cannot speak for (a scan that could
// not read it, an agent whose process it cannot show, a directory not on
// this machine) waits OrphanAfter.
type ProcessWitness interface {
	// Unowned reports whether the last scan found no live process of
	// agent (its driver's Name) that can be writing session id, whose
	// workspace is dir, and when that scan began reading the process
	// table: zero when it could not.
	Unowned(dir, id, agent string) (at time.Time, free bool)
}

// ownerSlack is how long after a record's last write a scan must begin
// for its process table to speak for the writer: modification times are
// coarse (HFS+ keeps whole seconds), and a process that started as the
// table was read may have written just before.
const ownerSlack = 2 * time.Second

// unowned reports whether, by a scan begun after t's last write (last),
// no live agent process can be writing t. Where no scan has looked since
// that write it asks for one, and says no for now; while a live process
// may be the writer it asks for a fresh look every QuietAfter (the scan
// timer backs off to minutes while nothing changes).
func (w *workspace) unowned(t *tail, last time.Time) bool {
	pw, ok := w.eng.cfg.Scanner.(ProcessWitness)
	a := w.eng.agents.named(t.agent)
	if !ok || a == nil {
		return false
	}
	if pid := w.hookPIDs[t.id]; pid != 0 && isAgentProcess(w.eng.agents, pid) {
		return false // a hook's live agent, wherever it runs
	}
	at, free := pw.Unowned(w.ws.Directory, t.id, a.Name())
	if at.IsZero() {
		return false
	}
	if at.Before(last.Add(ownerSlack)) {
		w.eng.askRescan()
		return false
	}
	if !free {
		if time.Since(at) >= w.eng.cfg.QuietAfter {
			// The process that may be its writer may exit: a fresh table
			// then ends the turn as promptly as a known agent's exit.
			w.eng.askRescan()
		}
		if !t.ownedAt.Equal(last) {
			t.ownedAt = last // said once per write
			w.eng.log.Debug().Str("workspace", w.id).Str("session", t.id).
				Msg("an open turn whose agent was never seen: a live agent process may be its writer, so it stays open")
		}
	}
	return free
}
