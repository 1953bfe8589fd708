package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/browse"
	"conductorbridge/bridge/browsetest"
	"conductorbridge/bridge/event"
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
	defer finder.Close()
	watchDirs := true
	r := h.startWith(func(c *Config) {
		c.Browse = finder
		c.SweepEvery = time.Hour // only file events can find it
		c.WatchDirs = &watchDirs
	})
	finder.OnChange = r.eng.BrowseChanged
	changes := r.eng.Changes()
	id := r.waitWorkspace(t, dir)
	r.collect(t, id, 0, has(event.User, "open the login page"))

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
// workspace), the sweep finds the state file once it appears, and then
// watches the folder.
func TestBrowseServerFoundByTheSweep(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("osaka")
	cwdOf["b2"] = dir
	h.write(filepath.Join(proj, "b2222222-2222-4222-8222-222222222222.jsonl"), prompt("b2", "hi"))
	finder := &browse.Finder{Log: zerolog.Nop()}
	defer finder.Close()
	watchDirs := true
	r := h.startWith(func(c *Config) {
		c.Browse = finder
		c.WatchDirs = &watchDirs
	})
	id := r.waitWorkspace(t, dir)
	startBrowser(t, r, dir, id)
	gstack := filepath.Join(dir, ".gstack")
	waitFor(t, "its .gstack folder to be watched", func() bool { return r.eng.isWatched(gstack) })
}

// startBrowser starts a browse server in dir and waits until workspace id
// says its browser is live.
func startBrowser(t *testing.T, r *running, dir, id string) *browsetest.Server {
	t.Helper()
	s, err := browsetest.New(dir, browsetest.Options{})
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
