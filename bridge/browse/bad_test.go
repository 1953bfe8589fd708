package browse

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"conductorbridge/benchkit/browseserver"
	"conductorbridge/bridge/event"
)

// Each bad input below: the bridge follows no browse server (or goes on
// following the good part of one), says in its log once what it ignored,
// sends the token nowhere it should not, and the workspace's stream keeps
// carrying the agent.

// agentStreams checks that the workspace's stream still carries the
// agent's events.
func (e *env) agentStreams() {
	e.t.Helper()
	_, _, sub := e.topic.Subscribe(e.topic.LastID())
	defer e.topic.Unsubscribe(sub)
	if _, err := e.topic.Publish([]event.Event{{Type: event.Assistant, Content: "still here"}}, nil); err != nil {
		e.t.Fatal(err)
	}
	select {
	case it := <-sub.C:
		if it.Type != event.Assistant {
			e.t.Errorf("the agent's event came as %s", it.Type)
		}
	case <-time.After(time.Minute):
		e.t.Fatal("the agent's event never came")
	}
}

// looksAgain makes the workspace look at its state file n times, as file
// events and sweeps would, and waits until it is done.
func (e *env) looksAgain(n int) {
	for range n {
		e.f.Changed(statePath(e.root))
		e.idle()
	}
}

// listener counts the connections made to a port, and what they sent.
type listener struct {
	ln    net.Listener
	conns atomic.Int64
	mu    sync.Mutex
	got   strings.Builder
}

func listen(t *testing.T) *listener {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.conns.Add(1)
			go func() {
				defer c.Close()
				b := make([]byte, 4096)
				for {
					n, err := c.Read(b)
					l.mu.Lock()
					l.got.Write(b[:n])
					l.mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return l
}

func (l *listener) port() int { return l.ln.Addr().(*net.TCPAddr).Port }

func token() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// refused checks a state file the bridge must not act on: found by the
// sweep and looked at again and again, it is not followed, nothing
// connects to the port it names, the log says why once (and never holds
// a token), and the agent's stream carries on.
func (e *env) refused(l *listener, said string) {
	e.t.Helper()
	e.sweep()
	e.idle()
	e.looksAgain(3)
	if e.live() || l.conns.Load() != 0 {
		e.t.Errorf("live %v, %d connections", e.live(), l.conns.Load())
	}
	if n := e.logs.Count(said); n != 1 || strings.Contains(e.logs.String(), "xxxxxxxx") {
		e.t.Errorf("%q said %d times (or the token is in it):\n%.2000s", said, n, e.logs)
	}
	e.agentStreams()
}

func TestPartialStateFile(t *testing.T) {
	e := newEnv(t)
	l := listen(t)
	if err := browseserver.WriteStateFile(e.root, []byte(fmt.Sprintf(`{"pid": %d, "port": %d, "tok`, os.Getpid(), l.port()))); err != nil {
		t.Fatal(err)
	}
	e.refused(l, "browse state file unreadable")
}

func TestStaleStateFileOfADeadProcess(t *testing.T) {
	e := newEnv(t)
	l := listen(t) // whatever holds the port now gets nothing
	e.writeState(map[string]any{"pid": deadPID(t), "port": l.port(), "token": token()})
	e.refused(l, "its process is not running")
}

// Another program of the user's holds the port (gstack's server died and
// its port was taken): it is asked /health, answers as something else,
// and never sees the token.
func TestPortHeldByAnotherProgram(t *testing.T) {
	e := newEnv(t)
	var mu sync.Mutex
	var auth []string
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>a dev server</html>")
	})}
	ln, _ := net.Listen("tcp4", "127.0.0.1:0")
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	tok := token()
	e.writeState(map[string]any{"pid": os.Getpid(), "port": ln.Addr().(*net.TCPAddr).Port, "token": tok})
	e.sweep()
	waitFor(t, "the attempts to end", func() bool { return e.logs.Count("not followed after") == 1 })
	e.idle()
	e.looksAgain(2)
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || e.live() {
		t.Fatalf("asked %d times, live %v", len(auth), e.live())
	}
	for _, a := range auth {
		if a != "" {
			t.Errorf("the token went to another program: %q", a)
		}
	}
	if n := e.logs.Count("not gstack's browse server"); n != 1 {
		t.Errorf("said %d times:\n%s", n, e.logs)
	}
	e.agentStreams()
}

// A token no gstack writes: the state file is refused before any
// connection is made, and said once (never the token itself).
func TestHugeOrHostileToken(t *testing.T) {
	tests := []struct {
		name, token, said string
	}{
		{"huge (a 1 MB state file)", strings.Repeat("x", 1<<20), "browse state file unreadable"},
		{"header injection", "abcdefgh12345678\r\nX-Evil: 1", "holds what gstack never writes"},
		{"too long", strings.Repeat("a", maxToken+1), "holds what gstack never writes"},
		{"too short", "short", "holds what gstack never writes"},
		{"nul", "abcdefgh\x0012345678", "holds what gstack never writes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			l := listen(t)
			e.writeState(map[string]any{"pid": os.Getpid(), "port": l.port(), "token": tt.token})
			e.refused(l, tt.said)
		})
	}
}

// A state file is read only from the workspace's own root, through no
// symlink that leaves it, a regular file of the user's that no one else
// may write; a FIFO in its place does not hang the bridge.
func TestStateFileMustBeTheWorkspacesOwn(t *testing.T) {
	tests := []struct {
		name  string
		place func(t *testing.T, root string, b []byte)
		ok    bool
	}{
		{"the file is a symlink out of the workspace", func(t *testing.T, root string, b []byte) {
			out := filepath.Join(t.TempDir(), "browse.json")
			os.WriteFile(out, b, 0o600)
			os.MkdirAll(filepath.Join(root, ".gstack"), 0o700)
			os.Symlink(out, browseserver.StatePath(root))
		}, false},
		{"the folder is a symlink out of the workspace", func(t *testing.T, root string, b []byte) {
			out := t.TempDir()
			os.WriteFile(filepath.Join(out, "browse.json"), b, 0o600)
			os.Symlink(out, filepath.Join(root, ".gstack"))
		}, false},
		{"writable by others", func(t *testing.T, root string, b []byte) {
			browseserver.WriteStateFile(root, b)
			os.Chmod(browseserver.StatePath(root), 0o666)
		}, false},
		{"writable by the group", func(t *testing.T, root string, b []byte) {
			browseserver.WriteStateFile(root, b)
			os.Chmod(browseserver.StatePath(root), 0o620)
		}, false},
		{"owned by another user", func(t *testing.T, root string, b []byte) {
			if os.Geteuid() != 0 {
				t.Skip("only root can give a file away")
			}
			browseserver.WriteStateFile(root, b)
			os.Chown(browseserver.StatePath(root), 65534, 65534)
		}, false},
		{"a FIFO", func(t *testing.T, root string, b []byte) {
			os.MkdirAll(filepath.Join(root, ".gstack"), 0o700)
			if err := syscall.Mkfifo(browseserver.StatePath(root), 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a symlink that stays in the workspace", func(t *testing.T, root string, b []byte) {
			os.WriteFile(filepath.Join(root, "elsewhere.json"), b, 0o600)
			os.MkdirAll(filepath.Join(root, ".gstack"), 0o700)
			os.Symlink("../elsewhere.json", browseserver.StatePath(root))
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			s := e.standIn(browseserver.Options{NoState: true})
			b := fmt.Appendf(nil, `{"pid":%d,"port":%d,"token":%q,"startedAt":%q}`, s.PID, s.Port, s.Token, s.StartedAt)
			tt.place(t, e.root, b)
			e.sweep()
			if tt.ok {
				waitFor(t, "the browser to be live", e.live)
				return
			}
			e.idle()
			e.looksAgain(2)
			if e.live() || s.Subscribers() != 0 {
				t.Errorf("followed: live %v, %d streams", e.live(), s.Subscribers())
			}
			if n := e.logs.Count("browse state file refused"); n != 1 {
				t.Errorf("said %d times:\n%s", n, e.logs)
			}
			e.agentStreams()
		})
	}
}

// serveStream runs a browse server whose /health is gstack's and whose
// stream is handler's, and writes its state file.
func (e *env) serveStream(handler func(w http.ResponseWriter, r *http.Request, flush func())) *atomic.Int64 {
	var streams atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"status":"healthy","mode":"launched","uptime":1,"tabs":1}`)
	})
	mux.HandleFunc("GET /activity/stream", func(w http.ResponseWriter, r *http.Request) {
		streams.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher)
		f.Flush()
		handler(w, r, f.Flush)
	})
	srv := &http.Server{Handler: mux}
	ln, _ := net.Listen("tcp4", "127.0.0.1:0")
	go srv.Serve(ln)
	e.t.Cleanup(func() { srv.Close() })
	e.writeState(map[string]any{"pid": os.Getpid(), "port": ln.Addr().(*net.TCPAddr).Port, "token": token(), "startedAt": "run-1"})
	return &streams
}

// A server that sends garbage between good entries: binary noise, a line
// of megabytes, JSON that is not an entry, an event gstack never sends,
// an entry of an unknown type. The good entries still come, in order; each
// kind of garbage is said once, however often it comes.
func TestGarbageFromTheBrowseServer(t *testing.T) {
	e := newEnv(t)
	noise := make([]byte, 100<<10)
	rand.Read(noise)
	garbage := func(w http.ResponseWriter) {
		w.Write(noise)
		w.Write([]byte("\n\n"))
		fmt.Fprintf(w, "event: activity\ndata: %s\n\n", strings.Repeat("y", 3<<20))
		fmt.Fprint(w, "event: activity\ndata: {not json\n\n")
		fmt.Fprint(w, "event: activity\ndata: [1,2,3]\n\n")
		fmt.Fprint(w, "event: surprise\ndata: {}\n\n")
	}
	e.serveStream(func(w http.ResponseWriter, r *http.Request, flush func()) {
		garbage(w)
		fmt.Fprint(w, "event: activity\ndata: {\"id\":1,\"type\":\"command_start\",\"command\":\"goto\",\"args\":[\"https://a.example\"]}\n\n")
		garbage(w)
		fmt.Fprint(w, "event: activity\ndata: {\"id\":2,\"type\":\"warp_drive\",\"command\":\"x\"}\n\n")
		fmt.Fprint(w, "event: activity\ndata: {\"id\":3,\"type\":\"command_end\",\"command\":\"goto\",\"status\":\"ok\",\"duration\":12}\n\n")
		garbage(w)
		flush()
		<-r.Context().Done()
	})
	e.sweep()
	evs := e.waitBrowse(2)
	if evs[0].Action != event.BrowseStart || evs[0].BrowseID != 1 || evs[1].Action != event.BrowseEnd || evs[1].BrowseID != 3 ||
		evs[1].DurationMS != 12 || !evs[1].OK {
		t.Errorf("good entries: %+v", evs)
	}
	for _, said := range []string{"over 262144 bytes", "not gstack's; skipped", `unknown type \"warp_drive\"`, `event \"surprise\"`} {
		waitFor(t, said, func() bool { return e.logs.Count(said) > 0 })
		if n := e.logs.Count(said); n != 1 {
			t.Errorf("%q said %d times:\n%s", said, n, e.logs)
		}
	}
	if !e.live() {
		t.Error("garbage ended the stream")
	}
	e.agentStreams()
}

// A server that accepts the stream and then sends nothing, not even a
// heartbeat: the bridge gives up on the connection after StallAfter, tries
// again a few times, says so once, and waits for the state file to change.
func TestStalledBrowseServer(t *testing.T) {
	e := newEnv(t)
	// The stall window covers the whole connection, /health's answer too:
	// at 50 ms a loaded machine (two suites at once, load 20) answered
	// /health late, so an attempt failed before its stream was asked for
	// (2 stream attempts, "stalled" said twice). 500 ms is far beyond any
	// loopback answer, and still ends each stalled stream soon.
	e.f.StallAfter = 500 * time.Millisecond
	streams := e.serveStream(func(w http.ResponseWriter, r *http.Request, flush func()) {
		<-r.Context().Done()
	})
	e.sweep()
	waitFor(t, "the attempts to end", func() bool { return e.logs.Count("not followed after") == 1 })
	e.idle()
	e.agentStreams()
	if n := streams.Load(); n != 3 {
		t.Errorf("%d attempts, want Retries (3)", n)
	}
	if n := e.logs.Count("browse server stalled"); n != 1 {
		t.Errorf("said %d times:\n%s", n, e.logs)
	}
	if e.live() {
		t.Error("still live")
	}
}

// A server flooding entries: at most BurstEntries of them, then
// EntriesPerSecond, reach the stream (here the clock stands still, so the
// burst is all); one gap event says which were passed over, and the log
// says so once. The stream's history keeps room for the agent.
func TestFloodingBrowseServer(t *testing.T) {
	e := newEnv(t)
	frozen := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	e.f.Now = func() time.Time { return frozen }
	s := e.standIn(browseserver.Options{})
	e.sweep()
	waitFor(t, "the browser to be live", e.live)
	const n = 20000
	for range n {
		s.Emit(browseserver.Entry{Type: "navigation", URL: "https://flood.example"})
	}
	e.agentStreams()
	waitFor(t, "the burst", func() bool { return len(e.browse()) >= BurstEntries })
	s.Close() // the stream ends: what was passed over is told
	evs := e.waitBrowse(BurstEntries + 1)
	if len(evs) != BurstEntries+1 {
		for _, ev := range evs[BurstEntries-2 : BurstEntries+5] {
			t.Logf("%s %d %d %d", ev.Action, ev.BrowseID, ev.GapFrom, ev.AvailableFrom)
		}
		t.Fatalf("%d browse events, want %d and a gap", len(evs), BurstEntries)
	}
	g := evs[BurstEntries]
	if evs[BurstEntries-1].BrowseID != BurstEntries || g.Action != event.BrowseGap || g.GapFrom != BurstEntries+1 || g.AvailableFrom != n+1 {
		t.Errorf("last entry %d, gap %+v", evs[BurstEntries-1].BrowseID, g)
	}
	if c := e.logs.Count("entries a second"); c != 1 {
		t.Errorf("said %d times", c)
	}
}
