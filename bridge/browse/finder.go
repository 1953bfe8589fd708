package browse

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/peer"
	"conductorbridge/bridge/proc"
	"conductorbridge/bridge/stream"
)

// Topic is a workspace's stream (stream.Topic): browse events go there
// with the browse resume point, journaled together.
type Topic interface {
	PublishSide(evs []event.Event, key string, cursor json.RawMessage) ([]stream.Item, error)
	Side(key string) json.RawMessage
}

// SideKey names the browse resume point in a workspace's journal.
const SideKey = "browse"

// Finder follows the browse server of every workspace it is told of. It
// has no timer of its own: the engine tells it of file events in a
// workspace's .gstack folder (Changed) and runs its sweep (Sweep), and a
// goroutine runs only for a workspace whose state file is being looked
// at or whose browse server is followed.
type Finder struct {
	Log zerolog.Logger
	// OnChange hears that a workspace's browser came or went (the engine
	// passes it on to the tray and the API's readers).
	OnChange func()
	// PeerUID finds the OS user at a loopback connection's other end
	// (nil: peer.UID).
	PeerUID func(local, remote net.Addr) (int, error)
	// Alive says whether a process runs (nil: proc.Alive).
	Alive func(pid int) bool
	// Now is the clock of the flood limit and of the events (nil: time.Now).
	Now func() time.Time
	// StallAfter ends a stream that sends nothing, not even gstack's
	// 15-second heartbeat, for this long (0: 45 s).
	StallAfter time.Duration
	// RetryAfter is the first wait before connecting again to a server
	// whose stream failed (0: 250 ms); it doubles up to 8 s, and after
	// Retries failures in a row (0: 6) the server is given up on: tried
	// again only on the sweep, less and less often (relook.go), or at
	// once when its state file changes.
	RetryAfter time.Duration
	Retries    int

	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc

	mu sync.Mutex
	ws map[string]*watch // by workspace id
}

func (f *Finder) init() {
	f.once.Do(func() {
		f.ctx, f.cancel = context.WithCancel(context.Background())
		f.ws = make(map[string]*watch)
	})
}

// Follow starts watching the workspace id at root for a browse server,
// its events going to t, and looks at once if its state file is there
// (one stat). Following it again from another root starts over; from the
// same root, it does nothing.
func (f *Finder) Follow(id, root string, t Topic) {
	f.init()
	f.mu.Lock()
	defer f.mu.Unlock()
	if w := f.ws[id]; w != nil {
		if w.root == filepath.Clean(root) {
			return
		}
		w.stop()
	}
	w := newWatch(f, id, filepath.Clean(root), t)
	fi, err := os.Lstat(statePath(w.root))
	w.stamp = stampOf(fi, err)
	f.ws[id] = w
	if err == nil {
		w.look()
	}
}

// Forget stops watching workspace id, and following its browse server.
func (f *Finder) Forget(id string) {
	f.init()
	f.mu.Lock()
	w := f.ws[id]
	delete(f.ws, id)
	f.mu.Unlock()
	if w != nil {
		w.stop()
	}
}

// Close stops every follow.
func (f *Finder) Close() {
	f.init()
	f.cancel()
}

// Live reports whether workspace id's browse server is followed now.
func (f *Finder) Live(id string) bool {
	f.init()
	f.mu.Lock()
	w := f.ws[id]
	f.mu.Unlock()
	return w != nil && w.isLive()
}

// Changed hears of a file event at path in some workspace's .gstack
// folder, and reports whether a followed workspace has its state there;
// if path is the state file or the folder itself, that workspace looks
// at it again.
func (f *Finder) Changed(path string) bool {
	f.init()
	dir, look := filepath.Dir(path), filepath.Base(path) == StateFile
	if filepath.Base(path) == StateDir {
		dir, look = path, true
	}
	root := filepath.Dir(dir)
	found := false
	for _, w := range f.list() {
		if w.root == root {
			found = true
			if look { // gstack's logs beside it change every second or so
				w.look()
			}
		}
	}
	return found
}

// Sweep stats every followed workspace's state file, as the engine's
// sweep does its transcripts, and looks again at those that changed: the
// safety net for missed file events, and how a state file is found where
// the .gstack folder is not watched (it may not exist yet, or folders are
// not watched at all). A server given up on gets one more attempt when
// its turn comes (relook.go). With folders, it also returns the .gstack
// folders that appeared since the last sweep, for the engine to watch. It
// is called from one goroutine at a time.
func (f *Finder) Sweep(folders bool) (appeared []string) {
	f.init()
	for _, w := range f.list() {
		fi, err := os.Lstat(statePath(w.root))
		now := stampOf(fi, err)
		if now != w.stamp {
			w.stamp = now
			w.look() // it appeared, changed or went
		} else if w.relookDue() {
			w.look() // a server given up on: one more attempt
		}
		if !folders {
			continue
		}
		dir := filepath.Join(w.root, StateDir)
		has := err == nil
		if !has {
			info, err := os.Lstat(dir)
			has = err == nil && info.IsDir()
		}
		if has && !w.hasDir {
			appeared = append(appeared, dir)
		}
		w.hasDir = has
	}
	return appeared
}

func (f *Finder) list() []*watch {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*watch, 0, len(f.ws))
	for _, w := range f.ws {
		out = append(out, w)
	}
	return out
}

func (f *Finder) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Finder) alive(pid int) bool {
	if f.Alive != nil {
		return f.Alive(pid)
	}
	return proc.Alive(pid)
}

func (f *Finder) peerUID() peerCheck {
	if f.PeerUID != nil {
		return f.PeerUID
	}
	return peer.UID
}

func (f *Finder) stallAfter() time.Duration {
	if f.StallAfter > 0 {
		return f.StallAfter
	}
	return 45 * time.Second
}

func (f *Finder) retryAfter() time.Duration {
	if f.RetryAfter > 0 {
		return f.RetryAfter
	}
	return 250 * time.Millisecond
}

func (f *Finder) retries() int {
	if f.Retries > 0 {
		return f.Retries
	}
	return 6
}

func (f *Finder) changed() {
	if f.OnChange != nil {
		f.OnChange()
	}
}

// stamp is what a sweep saw of a state file: missing, or its identity
// and size and time.
type stamp struct {
	exists bool
	mod    time.Time
	size   int64
	sys    any
}

func stampOf(fi os.FileInfo, err error) stamp {
	if err != nil {
		return stamp{}
	}
	s := stamp{exists: true, mod: fi.ModTime(), size: fi.Size()}
	s.sys = fileID(fi)
	return s
}
