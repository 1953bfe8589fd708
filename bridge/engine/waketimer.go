package engine

import "time"

// wakeTimer is the one-shot timer of the sweep and scan loops: C fires
// once per Reset. It is a time.Timer except on Linux (waketimer_linux.go),
// where a long runtime timer costs dozens of wake-ups each time it fires:
// the Go scheduler sleeps in epoll_wait with the timer's timeout, which the
// kernel lets run late by a thousandth of it (20 ms on a 20 s back-off),
// while the runtime's monitor thread wakes on time, finds the timer
// overdue and polls every 20 µs until it is run.
type wakeTimer interface {
	C() <-chan struct{}
	Reset(d time.Duration) // from now, dropping a fire not yet received
	Stop()                 // disarm
	Close()                // release; the timer is not used again
}

// goTimer is the portable wakeTimer.
type goTimer struct {
	t *time.Timer
	c chan struct{}
}

func newGoTimer(d time.Duration) *goTimer {
	g := &goTimer{c: make(chan struct{}, 1)}
	g.t = time.AfterFunc(d, func() {
		select {
		case g.c <- struct{}{}:
		default:
		}
	})
	return g
}

func (g *goTimer) C() <-chan struct{} { return g.c }

func (g *goTimer) Reset(d time.Duration) {
	g.t.Stop()
	g.drain()
	g.t.Reset(d)
}

func (g *goTimer) Stop() {
	g.t.Stop()
	g.drain()
}

func (g *goTimer) Close() { g.Stop() }

func (g *goTimer) drain() {
	select {
	case <-g.c:
	default:
	}
}
