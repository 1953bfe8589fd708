package sqlitewake

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// newRetryTimer is a timerfd read through the runtime's poller. The
// runtime's own timers wait at least a millisecond on Linux (its epoll
// waits whole milliseconds while every goroutine sleeps), and a commit
// synced in half of one was seen a millisecond after the event, where a
// timerfd fires within tens of microseconds. Without one (a kernel that
// refuses it), the runtime's timer.
func newRetryTimer() retryTimer {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return newGoTimer()
	}
	t := &fdTimer{fd: fd, f: os.NewFile(uintptr(fd), "sqlitewake timer"), c: make(chan struct{}, 1)}
	go t.wait()
	return t
}

type fdTimer struct {
	fd int
	f  *os.File // fd, read through the poller
	c  chan struct{}
}

// wait passes each expiry on to c until the file is closed.
func (t *fdTimer) wait() {
	var b [8]byte // the expiry count
	for {
		if _, err := t.f.Read(b[:]); err != nil {
			return
		}
		select {
		case t.c <- struct{}{}:
		default:
		}
	}
}

func (t *fdTimer) C() <-chan struct{} { return t.c }

func (t *fdTimer) Reset(d time.Duration) {
	ts := unix.NsecToTimespec(max(int64(d), 1)) // zero would disarm it
	_ = unix.TimerfdSettime(t.fd, 0, &unix.ItimerSpec{Value: ts}, nil)
}

func (t *fdTimer) Close() { t.f.Close() }
