package sqlitewake

import "time"

// retryTimer is the timer of the reads after a file event: they come
// every few hundred microseconds while a commit is being synced.
type retryTimer interface {
	// C fires once after each Reset (a Reset before it fired may fire it
	// early, once: Run reads once more than it needed).
	C() <-chan struct{}
	// Reset fires C after d.
	Reset(d time.Duration)
	// Close stops the timer for good.
	Close()
}

// goTimer is the runtime's timer: as precise as its poller, which on
// macOS (kqueue) waits for nanoseconds.
type goTimer struct {
	t *time.Timer
	c chan struct{}
}

func newGoTimer() *goTimer {
	g := &goTimer{c: make(chan struct{}, 1)}
	g.t = time.AfterFunc(time.Hour, func() {
		select {
		case g.c <- struct{}{}:
		default:
		}
	})
	g.t.Stop()
	return g
}

func (g *goTimer) C() <-chan struct{}    { return g.c }
func (g *goTimer) Reset(d time.Duration) { g.t.Reset(d) }
func (g *goTimer) Close()                { g.t.Stop() }
