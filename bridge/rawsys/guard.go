package rawsys

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// SlowCall is how long a raw call on a regular file may take before it
// counts as a stall: it held its processor that long. A write or a read
// of the page cache takes microseconds (a journal line: 5 to 20); one
// that takes milliseconds slept in the kernel (waiting for the disk, for
// dirty-page throttling, for the filesystem's journal) or was preempted
// (the machine's other work ran on its CPU: on 2 shared cores, 2 to 4 ms
// two or three times in a paced bench run of 30000 lines). Either way the
// processor was held, so either is a stall; the budget below is what
// tells a disk in trouble from the odd one. 2 ms is a hundred times the
// ordinary cost and already more than the bridge may take from a line to
// its event (1.5 ms at p99).
const SlowCall = 2 * time.Millisecond

// What stalls may cost before raw calls on files stop for the process.
// A stall holds its processor, so the rest of the bridge waits for it
// only if a garbage collection stops the world meanwhile; the stall
// delays its own line as an ordinary call's would. On the development
// machine, whose disk other work shares, a raw journal write stalled 4 to
// 17 ms about once in two 15-second paced runs: stopping at the first
// would have lost the saving within seconds on such a machine. So:
//   - one stall over MaxStall stops them at once (dirty-page throttling
//     pauses up to 200 ms; a disk that takes that long is in trouble);
//   - shorter ones draw on a budget of StallBudget, which comes back at
//     StallRefill per second of wall time (a thousandth of it): stalls
//     that come faster than that stop them too.
const (
	MaxStall    = 25 * time.Millisecond
	StallBudget = 50 * time.Millisecond
	StallRefill = time.Millisecond // per second
)

// Stalls is the budget stalls draw on (see StallBudget).
type Stalls struct {
	mu    sync.Mutex
	spent time.Duration // drawn and not yet come back, as of at
	at    time.Time
}

// take draws a stall of d at now, and reports whether the budget held it.
func (s *Stalls) take(d time.Duration, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.at.IsZero() {
		back := time.Duration(now.Sub(s.at).Seconds() * float64(StallRefill))
		s.spent = max(0, s.spent-back)
	}
	s.spent, s.at = s.spent+d, now
	return d <= MaxStall && s.spent <= StallBudget
}

// Slow is the stall that stopped raw calls on regular files.
type Slow struct {
	Call     string // "write" or "pread"
	File     string // its file's name, or its descriptor's number
	Took     time.Duration
	reported atomic.Bool
}

func (s *Slow) String() string {
	return fmt.Sprintf("a raw %s of %s took %v, past what stalls may take (one over %v, or over %v at %v a second): files are written and read with ordinary system calls for the rest of this run",
		s.Call, s.File, s.Took, MaxStall, StallBudget, StallRefill)
}

// tripped is the process's tripwire: nil until a stall broke the budget,
// and then that stall for good; stalls is the process's budget.
var (
	tripped atomic.Pointer[Slow]
	stalls  Stalls
)

// Guard makes raw calls on regular files, timed: once a stall (a call that
// took longer than SlowCall) broke the budget
// (MaxStall, StallBudget), Raw says no for the rest of the process and
// the callers make the ordinary calls, so a disk that makes them sleep
// holds up the whole bridge for a bounded time (see the package doc), not
// at every line. A nil or zero Guard is the process's: time.Now (whose
// readings are monotonic), the process's budget and tripwire; tests set
// their own.
type Guard struct {
	Now     func() time.Time
	Tripped *atomic.Pointer[Slow]
	Stalls  *Stalls
}

// Raw reports whether raw calls on regular files may still be made.
func (g *Guard) Raw() bool { return g.wire().Load() == nil }

// WriteFile is write(2) of a regular file that RawWrites accepted, raw
// and timed (even once the guard tripped: check Raw first). Like
// write(2) it may write only part of b; a signal's EINTR is retried.
func (g *Guard) WriteFile(fd int, b []byte) (int, error) {
	start := g.now()
	n, err := writeFile(fd, b)
	g.time("write", fd, start)
	return n, err
}

// PreadNoWait is PreadNoWait timed; once the guard tripped it reads
// nothing and says EAGAIN, so that the caller reads with the ordinary
// pread.
func (g *Guard) PreadNoWait(fd int, b []byte, off int64) (int, error) {
	if !g.Raw() {
		return 0, syscall.EAGAIN
	}
	start := g.now()
	n, err := preadNoWait(fd, b, off)
	g.time("pread", fd, start)
	return n, err
}

// Unreported returns the slow call that tripped the guard, once: nil if
// none did or a caller had it already, so that the bridge says it once.
func (g *Guard) Unreported() *Slow {
	s := g.wire().Load()
	if s == nil || !s.reported.CompareAndSwap(false, true) {
		return nil
	}
	return s
}

// time trips the guard if the call begun at start was a stall the
// budget does not hold.
func (g *Guard) time(call string, fd int, start time.Time) {
	now := g.now()
	took := now.Sub(start)
	if took <= SlowCall || !g.Raw() {
		return
	}
	if !g.budget().take(took, now) {
		g.wire().CompareAndSwap(nil, &Slow{Call: call, File: fileName(fd), Took: took})
	}
}

func (g *Guard) budget() *Stalls {
	if g == nil || g.Stalls == nil {
		return &stalls
	}
	return g.Stalls
}

func (g *Guard) now() time.Time {
	if g == nil || g.Now == nil {
		return time.Now()
	}
	return g.Now()
}

func (g *Guard) wire() *atomic.Pointer[Slow] {
	if g == nil || g.Tripped == nil {
		return &tripped
	}
	return g.Tripped
}

// PreadNoWait is preadv2(2) of a file RawReads accepted, into b at off,
// with RWF_NOWAIT, through the process's Guard: what the page cache
// holds, a short count if only the start of it does, EAGAIN if none of it
// can be read without waiting (or the guard tripped).
func PreadNoWait(fd int, b []byte, off int64) (int, error) {
	var process *Guard
	return process.PreadNoWait(fd, b, off)
}

// fileName names fd's file for the one message a tripped guard gives.
func fileName(fd int) string {
	if name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd)); err == nil {
		return name
	}
	return fmt.Sprintf("descriptor %d", fd)
}
