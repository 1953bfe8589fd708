package engine

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/benchkit/browseserver"
	"conductorbridge/bridge/browse"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
	"conductorbridge/testkit/logtest"
)

// A workspace's browse server is found through the engine's own
// watching: with the sweep's timer far off, a state file written into a
// watched .gstack folder is noticed by its file event alone; its entries
// come interleaved with the agent's events in the workspace's stream; the
// workspace says it has a live browser, and readers hear when that changes.
func TestBrowseServerFoundByTheEnginesWatch(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("tokyo")
	cwdOf["b1"] = dir
	os.MkdirAll(filepath.Join(dir, ".gstack"), 0o700) // gstack ran here before
	s1 := filepath.Join(proj, "b1111111-1111-4111-8111-111111111111.jsonl")
	h.write(s1, prompt("b1", "open the login page"))
	finder := &browse.Finder{Log: zerolog.Nop()}
	watchDirs := true
	r := h.startBrowsing(finder, func(c *Config) {
		c.SweepEvery = time.Hour // only file events can find it
		c.WatchDirs = &watchDirs
	})
	finder.OnChange = r.eng.BrowseChanged
	changes := r.eng.Changes()
	id := r.waitPrompt(t, dir, "open the login page")

	s := startBrowser(t, r, dir, id)
	select {
	case <-changes:
	default:
		t.Error("no change told when the browser came")
	}
	s.Command("goto", "https://example.com/login")
	r.collect(t, id, 0, func(evs []event.Event) bool { // arrival orders the stream: the browser's actions first
		return len(evs) > 0 && evs[len(evs)-1].Type == event.Browse && evs[len(evs)-1].Action == event.BrowseEnd
	})
	h.write(s1, answer("b1", "m1", "The login page is open.", "end_turn"))
	evs := r.collect(t, id, 0, has(event.TurnComplete, ""))
	var kinds []string
	for _, e := range evs {
		switch e.Type {
		case event.User, event.Assistant, event.TurnComplete:
			kinds = append(kinds, e.Type)
		case event.Browse:
			kinds = append(kinds, e.Type+":"+e.Action+":"+e.Command)
		}
	}
	want := "user browse:start:goto browse:end:goto assistant turn_complete"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("stream: %s\nwant %s", got, want)
	}

	s.Close() // it shuts down: its state file goes
	waitFor(t, "the browser to be gone", func() bool {
		in, _ := r.eng.Workspace(id)
		return !in.Browser
	})
}

// Where the .gstack folder does not exist yet (gstack never ran in the
// workspace), the sweep finds the state file once it appears, and where
// folders are watched, then watches the folder. Where they are not
// (macOS: kqueue has no folder watches), the sweep alone finds each new
// browse server: the first, and the one started after it shut down.
func TestBrowseServerFoundByTheSweep(t *testing.T) {
	for _, watchDirs := range []bool{true, false} {
		t.Run(fmt.Sprintf("folders watched %v", watchDirs), func(t *testing.T) {
			h := newHome(t)
			const sid = "b2222222-2222-4222-8222-222222222222"
			dir, path := h.session("osaka", sid)
			h.write(path, prompt(sid, "hi"))
			r := h.startBrowsing(&browse.Finder{Log: zerolog.Nop()}, func(c *Config) { c.WatchDirs = &watchDirs })
			id := r.waitWorkspace(t, dir)
			s := startBrowser(t, r, dir, id)
			gstack := filepath.Join(dir, ".gstack")
			if watchDirs {
				waitFor(t, "its .gstack folder to be watched", func() bool { return r.eng.isWatched(gstack) })
				return
			}
			if r.eng.isWatched(gstack) {
				t.Error("a .gstack folder watched where folders are not")
			}
			s.Command("goto", "https://example.com/first")
			r.collect(t, id, 0, hasBrowse(event.BrowseEnd, "https://example.com/first"))

			s.Close() // shut down: its state file goes, and a new run starts
			waitFor(t, "the browser to be gone", func() bool {
				in, _ := r.eng.Workspace(id)
				return !in.Browser
			})
			s2 := startBrowser(t, r, dir, id)
			s2.Command("goto", "https://example.com/second")
			r.collect(t, id, 0, hasBrowse(event.BrowseEnd, "https://example.com/second"))
		})
	}
}

// startBrowsing starts the engine with finder following the browse
// servers, tuned further by tune (nil: no further); the finder is closed
// once the engine has stopped.
func (h *home) startBrowsing(finder *browse.Finder, tune func(*Config)) *running {
	h.t.Cleanup(finder.Close)
	return h.startWith(func(c *Config) {
		c.Browse = finder
		if tune != nil {
			tune(c)
		}
	})
}

// hasBrowse is satisfied by a browse event of action whose page is url.
func hasBrowse(action, url string) func([]event.Event) bool {
	return func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Type == event.Browse && e.Action == action && e.URL == url {
				return true
			}
		}
		return false
	}
}

// startBrowser starts a browse server in dir and waits until workspace id
// says its browser is live.
func startBrowser(t *testing.T, r *running, dir, id string) *browseserver.Server {
	t.Helper()
	s, err := browseserver.New(dir, browseserver.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	waitFor(t, "the workspace's browser to be live", func() bool {
		in, _ := r.eng.Workspace(id)
		return in.Browser
	})
	return s
}

// A browse server whose page is stuck (gstack's /health says "unhealthy",
// a JS dialog open) is given up on after Retries attempts; once healthy,
// with its state file untouched, the engine's own sweep has it followed.
func TestUnhealthyBrowseServerFollowedOnceHealthy(t *testing.T) {
	h := newHome(t)
	const sid = "b3333333-3333-4333-8333-333333333333"
	dir, path := h.session("kyoto", sid)
	h.write(path, prompt(sid, "fill the form"))
	logs := &logtest.Buffer{}
	r := h.startBrowsing(&browse.Finder{Log: zerolog.New(logs), RetryAfter: 5 * time.Millisecond, Retries: 3}, nil)
	id := r.waitWorkspace(t, dir)
	s, err := browseserver.New(dir, browseserver.Options{NoState: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.SetHealthy(false)
	if err := s.WriteState(); err != nil { // found unhealthy from the first look
		t.Fatal(err)
	}
	waitFor(t, "the attempts to end", func() bool { return strings.Contains(logs.String(), "not followed after") })
	if !strings.Contains(logs.String(), "browse server unhealthy") {
		t.Errorf("the log does not say it is unhealthy:\n%s", logs)
	}
	s.SetHealthy(true) // the dialog is closed
	waitFor(t, "the workspace's browser to be live", func() bool {
		in, _ := r.eng.Workspace(id)
		return in.Browser
	}, func() { t.Logf("log:\n%s", logs) })
}

// Several viewers read a workspace's stream over SSE, as the API serves
// it: each gets the browser's actions, and the browse server still has
// one stream open, the bridge's.
func TestOneBrowseStreamWhateverTheSubscribers(t *testing.T) {
	h := newHome(t)
	const sid = "b4444444-4444-4444-8444-444444444444"
	dir, path := h.session("nara", sid)
	h.write(path, prompt(sid, "look it up"))
	r := h.startBrowsing(&browse.Finder{Log: zerolog.Nop()}, nil)
	id := r.waitWorkspace(t, dir)
	s := startBrowser(t, r, dir, id)
	topic, _ := r.eng.Topic(id)
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		stream.SSE{}.Serve(ctx, w, req, topic)
	}))
	defer srv.Close()
	defer cancel()

	const viewers = 5
	lines := make([]chan string, viewers)
	for i := range lines {
		resp, err := http.Get(srv.URL) // its headers come once it is subscribed
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		lines[i] = make(chan string, 1024)
		go func(c chan<- string) {
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				c <- sc.Text()
			}
			close(c)
		}(lines[i])
	}
	s.Command("goto", "https://example.com/shared")
	for i, c := range lines {
		deadline := time.After(5 * time.Second)
		for seen := false; !seen; {
			select {
			case l, ok := <-c:
				if !ok {
					t.Fatalf("viewer %d: the stream ended", i)
				}
				seen = strings.HasPrefix(l, "data:") && strings.Contains(l, `"action":"end"`) && strings.Contains(l, "https://example.com/shared")
			case <-deadline:
				t.Fatalf("viewer %d never got the browser's action", i)
			}
		}
	}
	if n := s.Subscribers(); n != 1 {
		t.Errorf("%d streams open to the browse server for %d viewers, want 1", n, viewers)
	}
}
