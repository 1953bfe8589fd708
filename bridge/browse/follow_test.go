package browse

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/benchkit/browseserver"
	"conductorbridge/bridge/event"
)

// A browse server appearing in the workspace is found by the sweep,
// followed, and each of its entries becomes a browse event with the
// fields the stand-in's gstack-made entry carries.
func TestFollowsTheWorkspacesBrowseServer(t *testing.T) {
	e := newEnv(t)
	e.sweep() // nothing yet
	if e.live() {
		t.Fatal("live with no browse server")
	}
	s := e.standIn(browseserver.Options{})
	e.sweep()
	waitFor(t, "the browser to be live", e.live)
	if e.changes.Load() == 0 {
		t.Error("OnChange not called when the browser came")
	}
	s.Command("goto", "https://example.com/login?token=abc&next=/home")
	s.Command("fail", "#submit")
	s.Command("type", "hunter2")
	evs := e.waitBrowse(6)
	start, end, fail := evs[0], evs[1], evs[3]
	if start.Action != event.BrowseStart || start.Command != "goto" || start.Args != "https://example.com/login?token=%5BREDACTED%5D&next=%2Fhome" ||
		start.URL != "about:blank" || start.BrowseID != 1 || start.SessionID != "" {
		t.Errorf("start: %+v", start)
	}
	if end.Action != event.BrowseEnd || !end.OK || end.Result != "Navigated to https://example.com/login?token=abc&next=/home (200)" ||
		!strings.Contains(end.URL, "token=%5BREDACTED%5D") || strings.Contains(end.URL, "abc") || end.BrowseID != 2 {
		t.Errorf("end (its page URL redacted by the bridge too): %+v", end)
	}
	if want := s.Entries()[0].Timestamp; start.TS.UnixMilli() != want {
		t.Errorf("start's time %v, want the entry's own %d", start.TS, want)
	}
	if fail.Action != event.BrowseEnd || fail.OK || fail.Error != "Element not found: #submit" || fail.Args != "#submit" {
		t.Errorf("failed command: %+v", fail)
	}
	if evs[4].Args != "[REDACTED]" {
		t.Errorf("type's text: %q", evs[4].Args)
	}
	var c cursor
	if err := json.Unmarshal(e.topic.Side(SideKey), &c); err != nil || c.ID != 6 || !strings.Contains(c.Run, s.StartedAt) {
		t.Errorf("resume point journaled: %s (%v)", e.topic.Side(SideKey), err)
	}
	// One connection, whatever reads the workspace's stream.
	if n := s.Subscribers(); n != 1 {
		t.Errorf("%d streams open to the browse server", n)
	}
	s.Close() // shutdown: its stream ends, its state file goes
	waitFor(t, "the browser to be gone", func() bool { return !e.live() })
	e.idle()
	if strings.Contains(e.logs.String(), s.Token) {
		t.Error("the token is in the log")
	}
	journal, _ := os.ReadFile(filepath.Join(e.state, "ws.jsonl"))
	for _, it := range e.topic.History(0) {
		if strings.Contains(string(it.Data), s.Token) {
			t.Errorf("the token is on the wire: %s", it.Data)
		}
	}
	if len(journal) == 0 || strings.Contains(string(journal), s.Token) {
		t.Errorf("the journal (%d bytes) holds the token", len(journal))
	}
}

// The browse server restarts (its ids start from 1 again): the new run
// is followed from its first entry, nothing of either lost or repeated.
// The bridge restarts: it resumes after the last entry it journaled.
func TestResumesAcrossRestartsOfEitherServer(t *testing.T) {
	e := newEnv(t)
	s1 := e.followedAt("https://one.example")
	s1.Command("click", "@e1")
	e.waitBrowse(4)

	s1.Close()
	e.sweep()
	waitFor(t, "the first run to be gone", func() bool { return !e.live() })
	s2 := e.standIn(browseserver.Options{})
	s2.Command("goto", "https://two.example") // before the bridge looks: replayed
	e.sweep()
	waitFor(t, "the second run", e.live)
	s2.Command("text")
	e.waitBrowse(8)

	e.restart()
	s2.Command("click", "@e2") // while the bridge is down
	e.sweep()
	waitFor(t, "the second run again", e.live)
	s2.Command("click", "@e3")
	evs := e.waitBrowse(12)

	var got []string
	for _, ev := range evs {
		got = append(got, ev.Action+" "+ev.Command+" "+ev.Args)
	}
	want := []string{
		"start goto https://one.example", "end goto https://one.example", "start click @e1", "end click @e1",
		"start goto https://two.example", "end goto https://two.example", "start text ", "end text ",
		"start click @e2", "end click @e2", "start click @e3", "end click @e3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("browse events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].ID <= evs[i-1].ID {
			t.Errorf("event ids not increasing: %d after %d", evs[i].ID, evs[i-1].ID)
		}
	}
}

// While the bridge was down the browse server made more entries than it
// keeps: the bridge asks after its last id, the server says what it no
// longer has, and the stream says so too, in the browse server's ids.
func TestGapWhileTheBridgeWasDown(t *testing.T) {
	e := newEnv(t)
	s := e.followedAt("https://example.com")
	e.close()
	for range browseserver.Capacity + 10 {
		s.Emit(browseserver.Entry{Type: "navigation", URL: "https://example.com/n"})
	}
	e.open()
	e.sweep()
	evs := e.waitBrowse(3 + browseserver.Capacity)
	g := evs[2]
	if g.Action != event.BrowseGap || g.GapFrom != 3 || g.AvailableFrom != 13 {
		t.Errorf("gap: %+v", g)
	}
	if evs[3].BrowseID != 13 || evs[len(evs)-1].BrowseID != 1012 || len(evs) != 3+browseserver.Capacity {
		t.Errorf("after the gap: %d events, ids %d…%d", len(evs), evs[3].BrowseID, evs[len(evs)-1].BrowseID)
	}
}

// A server that closes the connection after /health (gstack's keeps it
// alive) is still followed: the stream goes on a second connection, once
// the kernel can tell who holds it.
func TestFollowsAServerThatClosesAfterHealth(t *testing.T) {
	e := newEnv(t)
	s := e.standIn(browseserver.Options{CloseAfterHealth: true})
	e.sweep()
	waitFor(t, "the browser to be live", e.live)
	s.Command("goto", "https://example.com")
	if evs := e.waitBrowse(2); evs[1].Action != event.BrowseEnd || !evs[1].OK {
		t.Errorf("events: %+v", evs)
	}
}
