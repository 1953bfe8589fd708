package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"

	"conductorbridge/bridge/rawsys"
)

// inotifyWatcher reads inotify itself and hands each event to the engine
// on the goroutine that read it. fsnotify's reader sends each event over
// a channel to the engine's loop, which handed the read to a runner,
// which handed the events to the stream's goroutine: every goroutine
// readied while a processor is idle wakes a second thread that finds
// nothing to do and sleeps again, and with one goroutine carrying a line
// from the event to the socket (workHere, stream's direct writes) a
// paced line costs a third less CPU and half the thread switches.
//
// Its events are fsnotify's, as its inotify reader makes them for a watch
// added without options: the same operations (Create, Write, Remove,
// Rename, Chmod), a name under the watched path, a watched path's own
// removal or move reported once (not again when its folder is watched
// too), and the watch forgotten then.
type inotifyWatcher struct {
	f *os.File // the inotify descriptor, non-blocking: read through the poller

	mu     sync.Mutex
	fd     int
	byWd   map[int32]*watched // by watch descriptor
	byPath map[string]int32
	closed bool
}

// watched is a watch's path and the name of its last event's file, with
// the path before it: a live transcript's every line comes as an event
// of that name in its folder's watch, and making it anew was an
// allocation a line.
type watched struct {
	path             string
	lastName, lastAt string // lastAt: path + "/" + lastName
}

// inotifyOps are fsnotify's default operations.
const inotifyOps = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_DELETE | unix.IN_DELETE_SELF |
	unix.IN_MOVED_TO | unix.IN_MOVED_FROM | unix.IN_MOVE_SELF | unix.IN_ATTRIB

func newWatcher() (watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &inotifyWatcher{f: os.NewFile(uintptr(fd), "inotify"), fd: fd,
		byWd: make(map[int32]*watched), byPath: make(map[string]int32)}, nil
}

func (w *inotifyWatcher) Add(path string) error {
	path = filepath.Clean(path)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fsnotify.ErrClosed
	}
	wd, err := unix.InotifyAddWatch(w.fd, path, inotifyOps)
	if err != nil {
		return fmt.Errorf("watch %s: %w", path, err)
	}
	if _, ok := w.byWd[int32(wd)]; !ok { // a second name of a watched file keeps the first
		w.byWd[int32(wd)] = &watched{path: path}
	}
	w.byPath[path] = int32(wd)
	return nil
}

func (w *inotifyWatcher) Remove(path string) error {
	path = filepath.Clean(path)
	w.mu.Lock()
	defer w.mu.Unlock()
	wd, ok := w.byPath[path]
	if !ok || w.closed {
		return fsnotify.ErrNonExistentWatch
	}
	w.forgetLocked(wd)
	if _, err := unix.InotifyRmWatch(w.fd, uint32(wd)); err != nil {
		return fmt.Errorf("unwatch %s: %w", path, err)
	}
	return nil
}

// forgetLocked drops wd's paths.
func (w *inotifyWatcher) forgetLocked(wd int32) {
	delete(w.byWd, wd)
	for p, d := range w.byPath {
		if d == wd {
			delete(w.byPath, p)
		}
	}
}

func (w *inotifyWatcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	return w.f.Close() // ends a read under way
}

func (w *inotifyWatcher) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

func (w *inotifyWatcher) run(ctx context.Context, on watchHandler) {
	stop := context.AfterFunc(ctx, func() { w.Close() })
	defer stop()
	buf := make([]byte, 64<<10)
	rc, err := w.f.SyscallConn()
	if err != nil {
		on.watchError(fmt.Errorf("read inotify: %w", err))
		return
	}
	// The descriptor is non-blocking, so its read is raw (see rawsys):
	// EAGAIN, and the poller waits until it is readable.
	var n int
	var rerr error
	read := func(fd uintptr) bool {
		n, rerr = rawsys.Read(int(fd), buf)
		return rerr != syscall.EAGAIN
	}
	for {
		err := rc.Read(read)
		if err == nil {
			err = rerr
		}
		if err != nil {
			if w.isClosed() { // the poller's error for a closed file is not os.ErrClosed
				return
			}
			on.watchError(fmt.Errorf("read inotify: %w", err))
			continue
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			raw := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(raw.Len)]
			off += unix.SizeofInotifyEvent + int(raw.Len)
			if raw.Mask&unix.IN_Q_OVERFLOW != 0 {
				on.watchError(fsnotify.ErrEventOverflow)
			}
			if ev, ok := w.eventOf(raw, name); ok {
				on.event(ev)
			}
		}
		on.batchDone()
	}
}

// eventOf is fsnotify's event for a raw one, ok false when it makes none.
func (w *inotifyWatcher) eventOf(raw *unix.InotifyEvent, name []byte) (fsnotify.Event, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wt, ok := w.byWd[raw.Wd]
	if !ok {
		return fsnotify.Event{}, false // removed meanwhile
	}
	path := wt.path
	mask := raw.Mask
	if mask&(unix.IN_IGNORED|unix.IN_UNMOUNT) != 0 {
		w.forgetLocked(raw.Wd)
		return fsnotify.Event{}, false
	}
	if mask&unix.IN_DELETE_SELF != 0 {
		w.forgetLocked(raw.Wd) // the system drops the watch
		if _, ok := w.byPath[filepath.Dir(path)]; ok {
			return fsnotify.Event{}, false // its folder's watch tells of it
		}
	}
	if mask&unix.IN_MOVE_SELF != 0 {
		w.forgetLocked(raw.Wd)
		unix.InotifyRmWatch(w.fd, uint32(raw.Wd))
	}
	for len(name) > 0 && name[len(name)-1] == 0 {
		name = name[:len(name)-1]
	}
	ev := fsnotify.Event{Name: path}
	if len(name) > 0 {
		if wt.lastAt == "" || wt.lastName != string(name) {
			wt.lastAt = path + "/" + string(name)
			wt.lastName = wt.lastAt[len(path)+1:]
		}
		ev.Name = wt.lastAt
	}
	if mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 {
		ev.Op |= fsnotify.Create
	}
	if mask&(unix.IN_DELETE_SELF|unix.IN_DELETE) != 0 {
		ev.Op |= fsnotify.Remove
	}
	if mask&unix.IN_MODIFY != 0 {
		ev.Op |= fsnotify.Write
	}
	if mask&(unix.IN_MOVE_SELF|unix.IN_MOVED_FROM) != 0 {
		ev.Op |= fsnotify.Rename
	}
	if mask&unix.IN_ATTRIB != 0 {
		ev.Op |= fsnotify.Chmod
	}
	return ev, ev.Op != 0
}

// dirEventsNameFiles: a watched folder's events name every file made,
// moved or deleted in it, a file renamed over another included, in order
// with its writes (inotify's IN_CREATE, IN_MOVED_*, IN_DELETE).
const dirEventsNameFiles = true
