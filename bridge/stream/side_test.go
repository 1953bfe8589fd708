package stream

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"conductorbridge/bridge/event"
)

// A second producer's resume point (the workspace's browser) is journaled
// with its own events and read back after a restart, without touching the
// main producer's mark or its deltas; each key keeps its newest value.
func TestSideMarkSurvivesRestartBesideTheMainMark(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	if _, err := tp.PublishDelta(texts(2, "agent"), json.RawMessage(`{"off":1}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.PublishSide(browseEvents(2), "browse", json.RawMessage(`{"id":2}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.PublishDelta(texts(1, "agent"), json.RawMessage(`{"off":2}`), json.RawMessage(`{"d":2}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.PublishSide(browseEvents(1), "browse", json.RawMessage(`{"id":3}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := tp.PublishSide(nil, "other", json.RawMessage(`"x"`)); err != nil { // a mark alone, no events
		t.Fatal(err)
	}
	if got := string(tp.Side("browse")); got != `{"id":3}` {
		t.Errorf("side in memory: %s", got)
	}
	h.Close()

	h2 := NewHub(dir, 100)
	tp2, err := h2.Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	res := tp2.Resume()
	if string(res.Mark) != `{"off":1}` || len(res.Deltas) != 1 || string(res.Deltas[0]) != `{"d":2}` {
		t.Errorf("main mark after restart: %s %s", res.Mark, res.Deltas)
	}
	if got := string(tp2.Side("browse")); got != `{"id":3}` {
		t.Errorf("browse side after restart: %s", got)
	}
	if got := string(tp2.Side("other")); got != `"x"` {
		t.Errorf("other side after restart: %s", got)
	}
	if got := tp2.LastID(); got != 6 {
		t.Errorf("last id %d, want 6", got)
	}
	h2.Close()
}

// A torn last line takes its side mark with it: events and resume point
// rewind together, so the browser's entries of that line are asked for
// again and numbered once.
func TestTornLineRewindsTheSideMarkWithItsEvents(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	path := filepath.Join(dir, "w.jsonl")
	tp.PublishSide(browseEvents(1), "browse", json.RawMessage(`{"id":1}`))
	tp.PublishSide(browseEvents(1), "browse", json.RawMessage(`{"id":2}`))
	h.Close()
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-5], 0o600); err != nil { // the last line torn
		t.Fatal(err)
	}
	h2 := NewHub(dir, 100)
	tp2, _ := h2.Topic("w")
	if got := string(tp2.Side("browse")); got != `{"id":1}` || tp2.LastID() != 1 {
		t.Errorf("after a torn line: side %s, last id %d; want {\"id\":1}, 1", got, tp2.LastID())
	}
	h2.Close()
}

// Compaction rewrites the file from history: every side mark is kept.
func TestCompactionKeepsEverySideMark(t *testing.T) {
	dir, h, tp := hubTopic(t, 10)
	tp.journal.MaxBytes = 4 << 10
	tp.PublishSide(browseEvents(1), "browse", json.RawMessage(`{"id":1}`))
	tp.PublishSide(nil, "other", json.RawMessage(`{"n":7}`))
	for range 100 { // the main producer writes on and on: the file is compacted many times
		if _, err := tp.Publish(texts(1, strings.Repeat("x", 200)), json.RawMessage(`{"off":9}`)); err != nil {
			t.Fatal(err)
		}
	}
	h.Close()
	if fi, _ := os.Stat(filepath.Join(dir, "w.jsonl")); fi.Size() > 8<<10 {
		t.Fatalf("journal not compacted: %d bytes", fi.Size())
	}
	h2 := NewHub(dir, 10)
	tp2, _ := h2.Topic("w")
	if tp2.Side("browse") == nil || string(tp2.Side("other")) != `{"n":7}` || string(tp2.Resume().Mark) != `{"off":9}` {
		t.Errorf("after compaction: browse %s, other %s, main %s", tp2.Side("browse"), tp2.Side("other"), tp2.Resume().Mark)
	}
	h2.Close()
}

// A side mark whose line failed to reach the disk is written with the
// next line that does, whoever's line that is.
func TestSideMarkOfAFailedAppendGoesWithTheNextLine(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	tp.PublishSide(browseEvents(1), "browse", json.RawMessage(`{"id":1}`))
	d := failingJournal(t, tp)
	d.full = true
	if _, err := tp.PublishSide(browseEvents(1), "browse", json.RawMessage(`{"id":2}`)); err == nil || !strings.Contains(err.Error(), syscall.ENOSPC.Error()) {
		t.Fatalf("publish on a full disk: %v", err)
	}
	d.full = false
	if _, err := tp.Publish(texts(1, "agent"), nil); err != nil {
		t.Fatal(err)
	}
	h.Close()
	h2 := NewHub(dir, 100)
	tp2, _ := h2.Topic("w")
	if got := string(tp2.Side("browse")); got != `{"id":2}` {
		t.Errorf("side after the failed append and a later line: %s", got)
	}
	h2.Close()
}

func browseEvents(n int) []event.Event {
	evs := make([]event.Event, n)
	for i := range evs {
		evs[i] = event.Event{Type: event.Browse, Action: event.BrowseStart, Command: "goto", BrowseID: int64(i + 1)}
	}
	return evs
}
