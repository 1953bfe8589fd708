package rawsys

import (
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

// SlowCall is how long a raw call on a regular file may sleep in the
// kernel before the Guard stops them all. A write or a read of the page
// cache takes microseconds (a journal line: 5 to 20) and does not sleep;
// one that sleeps for milliseconds waited for the disk, for dirty-page
// throttling or for the filesystem's journal, and may do so again. 2 ms
// is a hundred times the ordinary cost and already more than the bridge
// may take from a line to its event (1.5 ms at p99).
//
// A call that took long without sleeping was preempted (the machine's
// other work ran on its CPU): that happens to any code, raw or not, and
// on a busy machine it happens every few thousand lines (2 to 4 ms, seen
// 2 or 3 times in 30000 lines of the paced bench on 2 shared cores,
// every one counted by the kernel as involuntary), so it must not trip
// the guard, or the saving would last minutes.
const SlowCall = 2 * time.Millisecond

// Slow is the raw call on a regular file that took longer than SlowCall.
type Slow struct {
	Call     string // "write" or "pread"
	File     string // its file's name, or its descriptor's number
	Took     time.Duration
	reported atomic.Bool
}

func (s *Slow) String() string {
	return fmt.Sprintf("a raw %s of %s slept in the kernel, %v in all (over %v): files are written and read with ordinary system calls for the rest of this run",
		s.Call, s.File, s.Took, SlowCall)
}

// tripped is the process's tripwire: nil until a raw call on a regular
// file was slow, and then that call for good.
var tripped atomic.Pointer[Slow]

// Guard makes raw calls on regular files, timed: once one slept in the
// kernel and took longer than SlowCall, Raw says no for the rest of the
// process and the callers make the ordinary calls, so a disk that makes
// them sleep holds up the whole bridge once (see the package doc) and not
// at every line. A nil or zero Guard is the process's: time.Now (whose
// readings are monotonic), the thread's sleeps as the kernel counts them,
// and the process's tripwire; tests set their own.
type Guard struct {
	Now func() time.Time
	// Sleeps is how often the calling thread has slept so far (nil: the
	// kernel's count of its voluntary context switches, getrusage's).
	Sleeps  func() int64
	Tripped *atomic.Pointer[Slow]
}

// Raw reports whether raw calls on regular files may still be made.
func (g *Guard) Raw() bool { return g.wire().Load() == nil }

// WriteFile is write(2) of a regular file that RawWrites accepted, raw
// and timed (even once the guard tripped: check Raw first). Like
// write(2) it may write only part of b; a signal's EINTR is retried.
func (g *Guard) WriteFile(fd int, b []byte) (int, error) {
	runtime.LockOSThread() // the sleeps counted before and after are one thread's
	defer runtime.UnlockOSThread()
	start, sleeps := g.now(), g.sleeps()
	n, err := writeFile(fd, b)
	g.time("write", fd, start, sleeps)
	return n, err
}

// PreadNoWait is PreadNoWait timed; once the guard tripped it reads
// nothing and says EAGAIN, so that the caller reads with the ordinary
// pread.
func (g *Guard) PreadNoWait(fd int, b []byte, off int64) (int, error) {
	if !g.Raw() {
		return 0, syscall.EAGAIN
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, sleeps := g.now(), g.sleeps()
	n, err := preadNoWait(fd, b, off)
	g.time("pread", fd, start, sleeps)
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

// time trips the guard if the call begun at start, with the thread's
// sleeps at sleeps, took longer than SlowCall and slept.
func (g *Guard) time(call string, fd int, start time.Time, sleeps int64) {
	if took := g.now().Sub(start); took > SlowCall && g.sleeps() != sleeps && g.Raw() {
		g.wire().CompareAndSwap(nil, &Slow{Call: call, File: fileName(fd), Took: took})
	}
}

func (g *Guard) now() time.Time {
	if g == nil || g.Now == nil {
		return time.Now()
	}
	return g.Now()
}

func (g *Guard) sleeps() int64 {
	if g == nil || g.Sleeps == nil {
		return threadSleeps()
	}
	return g.Sleeps()
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
