package browse

// A server given up on (Retries attempts at it failed in a row: it said
// it was unhealthy, its stream stalled, it did not answer as gstack's) is
// not connected to again on every look at its state file. The sweep gives
// it one more attempt now and then, with no timer of its own: on the
// first sweep after it was given up on, then the 2nd, the 4th, the 8th
// and so on, doubling up to every maxRelookEvery-th sweep. So a browse
// server whose page was stuck behind a dialog is followed again soon
// after it answers (the engine sweeps every second while an agent works),
// and a port held by something that is not gstack's is asked once in
// maxRelookEvery sweeps at most. Its state file changing, or a stream
// that ran a while, ends it.

// maxRelookEvery bounds the sweeps between two attempts at a server
// given up on.
const maxRelookEvery = 32

// relook is a watch's standing with the sweep, under the watch's mu.
type relook struct {
	exhausted bool // given up on the state file's server
	every     int  // sweeps from this attempt to the next
	wait      int  // sweeps to let pass before the next attempt
	granted   bool // the sweep allowed one attempt, not made yet
}

// giveUp is told that run gave up on the server: the sweep starts
// giving it attempts, if it was not already.
func (w *watch) giveUp() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.relook.exhausted {
		w.relook = relook{exhausted: true, every: 1}
	}
}

// recovered is told that the server's failures start again from none (a
// new server, or a stream that ran a while): no attempts are owed to it.
func (w *watch) recovered() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.relook = relook{}
}

// relookDue is the sweep's: it reports whether a server given up on gets
// an attempt now, and counts the sweep if not.
func (w *watch) relookDue() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	r := &w.relook
	if !r.exhausted || r.granted || w.running {
		return false
	}
	if r.wait > 0 {
		r.wait--
		return false
	}
	r.granted, r.wait = true, r.every-1
	r.every = min(2*r.every, maxRelookEvery)
	return true
}

// takeGrant is run's: whether the sweep allowed an attempt, using it up.
func (w *watch) takeGrant() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ok := w.relook.granted
	w.relook.granted = false
	return ok
}
