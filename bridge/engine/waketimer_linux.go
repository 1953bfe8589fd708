//go:build linux

package engine

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// fdTimer is a timerfd read through the runtime's poller: its expiry is
// exact, it is no runtime timer (so the scheduler's epoll_wait carries no
// long timeout to be late on), and it wakes the process once.
type fdTimer struct {
	fd int
	f  *os.File
	c  chan struct{}
}

// newWakeTimer returns a timer that fires after d; a timerfd where the
// kernel gives one, else a time.Timer.
func newWakeTimer(d time.Duration) wakeTimer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return newGoTimer(d)
	}
	t := &fdTimer{fd: fd, f: os.NewFile(uintptr(fd), "sweep-timer"), c: make(chan struct{}, 1)}
	go t.forward()
	t.Reset(d)
	return t
}

// forward turns each expiry into a send on c, until Close.
func (t *fdTimer) forward() {
	var b [8]byte
	for {
		if _, err := t.f.Read(b[:]); err != nil {
			return // closed
		}
		select {
		case t.c <- struct{}{}:
		default:
		}
	}
}

func (t *fdTimer) C() <-chan struct{} { return t.c }

func (t *fdTimer) Reset(d time.Duration) {
	d = max(d, time.Microsecond) // zero would disarm it
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(d.Nanoseconds())}
	unix.TimerfdSettime(t.fd, 0, &spec, nil)
	t.drain()
}

func (t *fdTimer) Stop() {
	unix.TimerfdSettime(t.fd, 0, &unix.ItimerSpec{}, nil)
	t.drain()
}

func (t *fdTimer) Close() { t.f.Close() } // ends forward

func (t *fdTimer) drain() {
	select {
	case <-t.c:
	default:
	}
}
