package browse

import (
	"encoding/json"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/benchkit/browseserver"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
	"conductorbridge/testkit/logtest"
)

// env is a workspace (a folder, its stream journaled in a state dir) and
// a Finder following it, as the engine would.
type env struct {
	t       *testing.T
	root    string
	state   string // the bridge's state dir: journals
	hub     *stream.Hub
	topic   *stream.Topic
	f       *Finder
	logs    *logtest.Buffer
	changes atomic.Int64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, root: t.TempDir(), state: t.TempDir(), logs: &logtest.Buffer{}}
	e.open()
	return e
}

// open starts the bridge's side: hub, topic and Finder (again after
// restart).
func (e *env) open() {
	e.hub = stream.NewHub(e.state, 0)
	var err error
	if e.topic, err = e.hub.Topic("ws"); err != nil {
		e.t.Fatal(err)
	}
	e.f = &Finder{Log: zerolog.New(e.logs), OnChange: func() { e.changes.Add(1) },
		RetryAfter: 5 * time.Millisecond, Retries: 3}
	e.f.Follow("ws", e.root, e.topic)
	e.t.Cleanup(e.close)
	logs := e.logs
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Logf("the bridge's log:\n%s", logs)
		}
	})
}

func (e *env) close() {
	e.f.Close()
	e.hub.Close()
}

// restart is the bridge stopping and starting again on the same state.
func (e *env) restart() {
	e.close()
	e.open()
}

// standIn starts a run of the stand-in browse server in the workspace.
func (e *env) standIn(o browseserver.Options) *browseserver.Server {
	e.t.Helper()
	s, err := browseserver.New(e.root, o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(s.Close)
	return s
}

// followedAt starts a stand-in browse server that goes to url, and waits
// until the bridge follows it: that goto's start and end in the stream.
func (e *env) followedAt(url string) *browseserver.Server {
	e.t.Helper()
	s := e.standIn(browseserver.Options{})
	s.Command("goto", url)
	e.sweep()
	e.waitBrowse(2)
	return s
}

// sweep is the engine's sweep.
func (e *env) sweep() { e.f.Sweep(true) }

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (e *env) live() bool { return e.f.Live("ws") }

// idle waits until the workspace's goroutine has ended: every look made
// so far is done.
func (e *env) idle() {
	e.t.Helper()
	e.waitWatch("the watch to finish looking", func(w *watch) bool { return !w.running })
}

// waitWatch waits until done says so of the workspace's watch, read
// under its lock.
func (e *env) waitWatch(what string, done func(*watch) bool) {
	e.t.Helper()
	e.f.mu.Lock()
	w := e.f.ws["ws"]
	e.f.mu.Unlock()
	waitFor(e.t, what, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return done(w)
	})
}

// browse returns the browse events in the workspace's stream.
func (e *env) browse() []event.Event {
	var out []event.Event
	for _, it := range e.topic.History(0) {
		if it.Type == event.Browse {
			out = append(out, it.Event())
		}
	}
	return out
}

// waitBrowse waits for n browse events and returns them.
func (e *env) waitBrowse(n int) []event.Event {
	e.t.Helper()
	var evs []event.Event
	waitFor(e.t, "browse events", func() bool {
		evs = e.browse()
		return len(evs) >= n
	})
	return evs
}

// writeState writes a state file as given, 0600, the way gstack does.
func (e *env) writeState(v any) {
	e.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := browseserver.WriteStateFile(e.root, b); err != nil {
		e.t.Fatal(err)
	}
}

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	return p.Pid
}
