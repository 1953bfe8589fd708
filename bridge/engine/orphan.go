package engine

import (
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/proc"
)

// A turn ends when its agent does. The record of a killed agent (kill -9,
// a crash, a closed terminal) just stops mid-turn: no stop reason, no
// task_complete, no hook. So while a session's turn is open the engine
// keeps the pid of the agent running it (the scan's, a hook's, else the
// workspace's own agent when it has a single session at work), noted at
// each read and each hook's pid while that agent lives (noteAgents). Once
// that process is gone — or is no longer an agent: a pid reused by another
// program never counts as alive — and the record has been quiet for
// QuietAfter, the parser ends the turn (agent.Parser.Interrupt): a
// turn_complete marked interrupted with what it spent, then idle. A turn
// whose agent was never seen alive (dead before the bridge started, or
// before its session was found) ends so too once a scan that read the
// whole process table found no agent process that can be its writer
// (unowned.go). Where no process can be known (a record from elsewhere,
// a process table the bridge cannot read), the turn ends after
// OrphanAfter of quiet.

// orphanCandidate reports, from a snapshot alone, whether a session may be
// working for an agent that is gone: the sweep then asks its workspace to
// look (reap).
func (s *snapshot) orphanCandidate(now time.Time, quiet time.Duration) bool {
	for _, si := range s.sessions {
		if si.Streamed && si.Status == event.StateWorking && now.Sub(si.LastActivity) >= quiet {
			return true
		}
	}
	return false
}

// reap ends the open turns whose agent is gone. It reads every session
// first, but only when some turn may end: a turn whose end was written
// meanwhile ends as written. The sweep asks every second for each
// session at work that has gone quiet, whose agent mostly still runs (a
// long tool call): reading and publishing each of them, to end nothing,
// was a third of what a bridge following 200 workspaces spent while ten
// agents worked.
func (w *workspace) reap() {
	w.eng.reaps.Add(1)
	if len(w.orphans(time.Now())) == 0 {
		return
	}
	if w.readAll() {
		w.armQuiet() // only news re-arms it: a look every sweep must not hold off the quiet spell
	}
	evs := w.evs[:0]
	for _, t := range w.orphans(time.Now()) {
		w.eng.log.Info().Str("workspace", w.id).Str("session", t.id).Int("pid", t.agentPID).
			Dur("quiet", time.Since(t.liveMod)).Msg("the agent of an open turn is gone: the turn ends, interrupted")
		n := len(evs)
		evs = t.parser.Interrupt(evs)
		t.stamp(evs, n)
		t.needs = ""
		evs = t.statusChange(evs, false)
		t.agentPID = 0
	}
	w.publish(evs)
}

// orphans are the sessions whose turn is open and whose agent is gone
// (quiet for QuietAfter), was never known and no process can be it (quiet
// for QuietAfter, unowned) or was never known (quiet for OrphanAfter), in
// the order of sorted. It notes the live agent of each other open turn.
func (w *workspace) orphans(now time.Time) []*tail {
	working := w.working()
	var out []*tail
	for _, t := range w.sorted() {
		if !t.parser.InTurn() {
			t.agentPID = 0
			continue
		}
		if pid := w.agentOf(t, working); pid != 0 && isAgentProcess(w.eng.agents, pid) {
			t.agentPID = pid
			continue
		}
		last := w.lastWrite(t)
		quiet := now.Sub(last)
		gone := t.agentPID != 0 && !isAgentProcess(w.eng.agents, t.agentPID) && quiet >= w.eng.cfg.QuietAfter
		orphan := t.agentPID == 0 && quiet >= w.eng.cfg.OrphanAfter
		// A turn whose last line may be its end (Unsure: a version that
		// writes no stop reason) is not ended early for want of a writer:
		// its quiet spell, or its Stop hook's backstop, ends it as a whole
		// turn, as a run the bridge saw throughout would have (a 2.0 turn
		// resumed and finished while the bridge was down is no interrupted
		// one).
		early := t.agentPID == 0 && quiet >= w.eng.cfg.QuietAfter && !t.parser.Unsure() && w.unowned(t, last)
		if gone || orphan || early {
			out = append(out, t)
		}
	}
	return out
}

// lastWrite is when t's record last changed, as far as the engine can
// tell. A session resumed from the journal with nothing read since has
// no time of its own yet: its record's, or for a record that is no file
// (rows), when this run began following it. Never the zero time, which
// made every open turn resumed so look quiet for ages, ending it at once
// however alive its agent.
func (w *workspace) lastWrite(t *tail) time.Time {
	if mod := t.lastMod(); !mod.IsZero() {
		return mod
	}
	if !w.followedAt.IsZero() {
		return w.followedAt
	}
	return w.eng.started
}

// noteAgents notes the live agent of each open turn as soon as the
// workspace knows it (the listing's pid, a hook's, the scan's agent of
// the workspace), not only once the turn has gone quiet: an agent killed
// within QuietAfter of its last line is gone by the first look, and a
// turn whose agent was never noted waits OrphanAfter. It runs after each
// read and each hook's pid; a pid already noted is not looked up again.
func (w *workspace) noteAgents() {
	working := w.working()
	if t := w.onlyTail(); t != nil {
		w.noteAgent(t, working)
		return
	}
	for _, t := range w.tails {
		w.noteAgent(t, working)
	}
}

// noteAgent notes the live agent of t's open turn.
func (w *workspace) noteAgent(t *tail, working int) {
	if !t.parser.InTurn() {
		return
	}
	if pid := w.agentOf(t, working); pid != 0 && pid != t.agentPID && isAgentProcess(w.eng.agents, pid) {
		t.agentPID = pid
	}
}

// working counts the sessions whose turn is open.
func (w *workspace) working() int {
	if t := w.onlyTail(); t != nil {
		if t.parser.InTurn() {
			return 1
		}
		return 0
	}
	n := 0
	for _, t := range w.tails {
		if t.parser.InTurn() {
			n++
		}
	}
	return n
}

// agentOf is the pid of the agent running t's open turn as the workspace
// knows it: its own (the listing's or a hook's), else the workspace's
// agent when t's is the only open turn; 0 if none is known.
func (w *workspace) agentOf(t *tail, working int) int {
	pid := w.pidOf(t.id, t.meta)
	if pid == 0 && working == 1 {
		pid = w.ws.PID // the workspace's own agent, working on its only open turn
	}
	return pid
}

// isAgentProcess reports whether pid is a live agent process (Claude Code
// or Codex), by its name and arguments (never its environment): a pid
// reused by another program is not one.
func isAgentProcess(as agents, pid int) bool {
	if !proc.Alive(pid) {
		return false
	}
	p, _, err := proc.Parent(pid)
	return err == nil && as.isProcess(p.Comm, p.Args)
}
