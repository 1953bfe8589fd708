package engine

import (
	"conductorbridge/bridge/discover"
)

// AgentPID records the pid of the agent process a hook call came from (the
// relay finds it among its own ancestors) as its session's pid, and with
// running false forgets it (the session is ending). A session whose
// process names it in its arguments keeps that pid: the hook's is for the
// processes that do not (a plain `claude` run), which the scan could only
// place by working directory. It never waits on the workspace's work.
func (e *Engine) AgentPID(ws string, c Call, running bool) {
	if c.SessionID == "" || (running && c.PID <= 0) {
		return
	}
	w, ok := e.followed(ws)
	if !ok {
		return
	}
	w.enqueue(func() {
		if !running {
			if _, ok := w.hookPIDs[c.SessionID]; ok {
				delete(w.hookPIDs, c.SessionID)
				w.hooked.Store(len(w.hookPIDs) > 0)
				w.republish()
			}
			return
		}
		if w.hookPIDs[c.SessionID] == c.PID || !isAgentProcess(e.agents, c.PID) {
			return
		}
		if w.hookPIDs == nil {
			w.hookPIDs = make(map[string]int)
		}
		for id, pid := range w.hookPIDs {
			if pid == c.PID {
				delete(w.hookPIDs, id) // one process runs one session at a time: it moved on (/clear)
			}
		}
		w.hookPIDs[c.SessionID] = c.PID
		w.hooked.Store(true)
		w.noteAgents() // a turn already open learns its agent now, not once quiet
		w.republish()
	})
}

// republish publishes a fresh snapshot, telling readers when it changed.
func (w *workspace) republish() {
	if w.snapshot() {
		w.eng.changed()
	}
}

// pidOf is a session's pid: its process's arguments name it (the scan's
// word), else a hook from it said which process it is.
func (w *workspace) pidOf(id string, m discover.Session) int {
	if m.PID != 0 {
		return m.PID
	}
	return w.hookPIDs[id]
}

// recheckPIDs drops the hooks' pids whose process is gone or is no
// longer an agent (a reused pid); the scan calls it every time, so an
// agent killed without its SessionEnd hook loses its pid within a scan.
func (w *workspace) recheckPIDs() {
	if !w.hooked.Load() {
		return
	}
	w.enqueue(func() {
		dropped := false
		for id, pid := range w.hookPIDs {
			if !isAgentProcess(w.eng.agents, pid) {
				delete(w.hookPIDs, id)
				dropped = true
			}
		}
		w.hooked.Store(len(w.hookPIDs) > 0)
		if dropped {
			w.republish()
		}
	})
}
