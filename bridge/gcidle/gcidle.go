// Package gcidle holds off the Go runtime's periodic collection while the
// bridge is idle.
//
// The runtime collects at least every two minutes even when nothing was
// allocated (its forced collection), and each one wakes its threads 10 to
// 40 times: on an idle bridge that was a third of its wake-ups. With
// GOGC off and a soft memory limit the runtime still collects, but only
// when the memory it holds nears the limit, never on the clock. While the
// owner says it is idle, the Governor sets that mode, with a limit of the
// memory the runtime holds as it falls idle (mapped and not returned to
// the system) plus as much again as the live heap, at least MinRoom: the
// room the default GOGC=100 gives the heap before its next collection. An
// idle bridge that allocates is collected as it nears the limit, so it
// holds no more than when it fell idle plus that room. A live heap that
// outgrows the limit (work the owner has not told of yet) is not held to
// it: the runtime's limit is soft, but while such a heap allocates the
// runtime collects back to back, up to what its CPU limiter allows (half
// the CPU). So work that may allocate much while the owner is idle (a
// usage report asked of an idle bridge) runs inside Busy, at the default
// pacing. When work resumes (SetIdle false) GOGC and the limit are put
// back as they were.
//
// A GOGC or GOMEMLIMIT the person set is theirs: the Governor then does
// nothing.
package gcidle

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// MinRoom is the least room the limit leaves for the heap to grow, for a
// tiny live heap (the runtime's own minimum heap goal is 4 MB).
const MinRoom = 4 << 20

// Governor switches the collector between its default pacing and the
// memory limit. Use New.
type Governor struct {
	mu       sync.Mutex
	disabled bool  // the person's GOGC or GOMEMLIMIT
	started  bool  // Start was called
	idle     bool  // the owner's word
	busy     int   // Busy calls not yet done
	on       bool  // GOGC is off and the limit set
	percent  int   // GOGC to put back
	limit    int64 // the memory limit to put back
	set      int64 // the limit in force while on
}

// New returns a Governor; getenv reads the environment (os.Getenv). With
// GOGC or GOMEMLIMIT set, it never changes the collector.
func New(getenv func(string) string) *Governor {
	return &Governor{disabled: getenv("GOGC") != "" || getenv("GOMEMLIMIT") != ""}
}

// Start lets SetIdle act from now on (the owner's word before it is kept):
// the bridge starts it once its cold start, which runs under a limit of
// its own, has caught up.
func (g *Governor) Start() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.started = true
	g.settle()
}

// SetIdle says whether the owner is idle. It never blocks for long (it
// may wait for a collection's mark phase under way to end).
func (g *Governor) SetIdle(idle bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if idle == g.idle {
		return
	}
	g.idle = idle
	g.settle()
}

// Busy puts the default pacing back until done is called, whatever the
// owner's word: for work its idle word does not cover that may allocate
// far past the idle limit. Calls may overlap; the limit comes back, set
// anew, once the last is done and the owner is still idle.
func (g *Governor) Busy() (done func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy++
	g.settle()
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.busy--
			g.settle()
		})
	}
}

// settle holds the collector off when the owner is idle and nothing is
// busy, else puts it back. Called with g.mu held.
func (g *Governor) settle() {
	if g.disabled || !g.started {
		return
	}
	if g.idle && g.busy == 0 {
		g.hold()
	} else {
		g.release()
	}
}

// Limit is the memory limit the Governor set, 0 while the collector paces
// itself as usual.
func (g *Governor) Limit() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.on {
		return 0
	}
	return g.set
}

// hold turns GOGC off under the limit.
func (g *Governor) hold() {
	if g.on {
		return
	}
	m := read()
	limit := m.held + max(m.live, MinRoom)
	// Before GOGC goes off: a limit below what is held would collect at
	// once.
	g.limit = debug.SetMemoryLimit(limit)
	if g.limit < limit {
		// A tighter limit was set (the cold start's): it stands, and so
		// does the default pacing.
		debug.SetMemoryLimit(g.limit)
		return
	}
	g.percent = debug.SetGCPercent(-1)
	g.on, g.set = true, limit
}

// release puts GOGC and the limit back.
func (g *Governor) release() {
	if !g.on {
		return
	}
	g.on = false
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.limit)
}

// mem is what the runtime holds, in bytes.
type mem struct {
	held int64 // mapped and not returned to the system
	live int64 // the heap the last collection marked
}

func read() mem {
	s := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/heap/live:bytes"},
	}
	metrics.Read(s)
	v := func(i int) int64 { return int64(min(s[i].Value.Uint64(), math.MaxInt64/4)) }
	return mem{held: v(0) - v(1), live: v(2)}
}
