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
