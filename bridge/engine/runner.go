package engine

import "runtime"

// Runners. A workspace with work is handed to a runner goroutine, which
// does its work (workspace.work) and then waits for the next workspace
// with work. A few runners wait between lines: starting a goroutine for
// every line an agent writes, and growing its stack from the smallest
// again to what a read, a parse and a publish need, cost more than a
// twentieth of the bridge's CPU at 200 agents × 10 lines/s. Runners past
// keepRunners end when they run out of work, so a burst never waits for
// one and an idle bridge keeps only a few parked goroutines, which cost
// no wake-ups.

// keepRunners is how many runners may wait for work: as many as may read
// at once (Engine.reads).
func keepRunners() int32 { return int32(max(4, 2*runtime.GOMAXPROCS(0))) }

// run hands w, which has work, to a waiting runner, or to a new one when
// none waits. It never blocks.
func (e *Engine) run(w *workspace) {
	select {
	case e.runq <- w:
	default:
		go e.runner(w)
	}
}

// runner works w, then waits for the next workspace with work while
// there are fewer than keepRunners waiting, and ends otherwise or when
// the engine stops.
func (e *Engine) runner(w *workspace) {
	var done <-chan struct{}
	e.mu.RLock()
	if e.ctx != nil {
		done = e.ctx.Done()
	}
	e.mu.RUnlock()
	for {
		w.work()
		if e.waiting.Add(1) > e.keep {
			e.waiting.Add(-1)
			return
		}
		select {
		case w = <-e.runq:
			e.waiting.Add(-1)
		case <-done:
			e.waiting.Add(-1)
			return
		}
	}
}

// Reading on the watcher's goroutine. Most file events are an agent
// appending a line to a record a workspace follows: a read of a few
// hundred bytes, a parse, a journal write and a publish. Handed to a
// runner, each readied one more goroutine, and a goroutine readied while
// a processor is idle wakes a second thread that finds nothing to do and
// sleeps again. The watcher's goroutine therefore reads such a workspace
// itself once the events read at once are routed (workHere), unless it
// has more to do than a plain read (a listing, a hook's job, a quiet
// spell, an end) or is at work on a runner already; and it reads at most
// hereBudget bytes of a record, leaving a larger backlog to a runner, so
// that other workspaces' events wait behind no more than that.

// hereBudget bounds the bytes of one record read on the watcher's
// goroutine.
const hereBudget = 64 << 10

// pokeWrite is poke for a write to a followed record: with here set and
// nothing to list again, the workspace is claimed for the caller, added
// to here, and read by workHere.
func (w *workspace) pokeWrite(relook bool, here *[]*workspace) {
	if relook || here == nil {
		w.poke(relook)
		return
	}
	w.mu.Lock()
	w.kicked = true
	claim := !w.running
	w.running = true
	w.mu.Unlock()
	if claim {
		*here = append(*here, w)
	}
}

// workHere reads a workspace pokeWrite claimed, on the caller's
// goroutine; anything else waiting, and a backlog past hereBudget, goes
// on to a runner.
func (w *workspace) workHere() {
	w.mu.Lock()
	plain := w.ctx.Err() == nil && len(w.jobs) == 0 && !w.quieted &&
		!w.relook.Load() && w.update.Load() == nil && len(w.eng.reads) < cap(w.eng.reads)
	if plain {
		w.kicked = false
	}
	w.mu.Unlock()
	if plain {
		w.here = true
		w.sync()
		w.here = false
	}
	w.mu.Lock()
	if w.backlog {
		w.kicked, w.backlog = true, false
	}
	more := w.ctx.Err() != nil || len(w.jobs) > 0 || w.kicked || w.quieted
	w.running = more
	w.mu.Unlock()
	if more {
		w.eng.run(w)
	}
}
