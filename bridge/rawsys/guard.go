package rawsys

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

// SlowCall is how long a raw call on a regular file may take before the
// Guard stops them all. A write or a read of the page cache takes
// microseconds (a journal line: 5 to 20); one that takes milliseconds has
// slept in the kernel (for the disk, for dirty-page throttling, for the
// filesystem's journal) and may do so again, so 2 ms is a hundred times
// the ordinary cost and already longer than the bridge may take from a
// line to its event (1.5 ms at p99). A call only preempted for that long
// trips it too: that costs the saving, not the bridge.
const SlowCall = 2 * time.Millisecond

// Slow is the raw call on a regular file that took longer than SlowCall.
type Slow struct {
	Call     string // "write" or "pread"
	File     string // its file's name, or its descriptor's number
	Took     time.Duration
	reported atomic.Bool
}

func (s *Slow) String() string {
	return fmt.Sprintf("a raw %s of %s took %v (over %v): files are written and read with ordinary system calls for the rest of this run",
		s.Call, s.File, s.Took, SlowCall)
}

// tripped is the process's tripwire: nil until a raw call on a regular
// file was slow, and then that call for good.
var tripped atomic.Pointer[Slow]

// Guard makes raw calls on regular files, timed: once one took longer
// than SlowCall, Raw says no for the rest of the process and the callers
// make the ordinary calls, so a disk that makes them sleep holds up the
// whole bridge once (see the package doc) and not at every line. A nil or
// zero Guard is the process's: time.Now (whose readings are monotonic)
// and the process's tripwire; tests set their own.
type Guard struct {
	Now     func() time.Time
	Tripped *atomic.Pointer[Slow]
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

// time trips the guard if the call begun at start was slow.
func (g *Guard) time(call string, fd int, start time.Time) {
	if took := g.now().Sub(start); took > SlowCall && g.Raw() {
		g.wire().CompareAndSwap(nil, &Slow{Call: call, File: fileName(fd), Took: took})
	}
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
