package stream

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestJournalsOpenStayWithinTheBudget: a hub with more topics than its
// budget of open journal files keeps at most that many open (counted in
// /proc/self/fd where there is one), and a journal whose file was closed
// for another reopens it on its next write, losing nothing: after a
// restart every topic has all its events, in order, and numbers on.
func TestJournalsOpenStayWithinTheBudget(t *testing.T) {
	dir := t.TempDir()
	const topics, budget = 10, 3
	h := NewHub(dir, 100)
	h.fds = newFDBudget(budget)
	var tps []*Topic
	for i := range topics {
		tp, err := h.Topic(fmt.Sprintf("w%d", i))
		if err != nil {
			t.Fatal(err)
		}
		tps = append(tps, tp)
	}
	for round := range 3 {
		for i, tp := range tps {
			if _, err := tp.Publish(texts(2, fmt.Sprintf("r%d", round)), []byte(fmt.Sprintf(`{"r":%d}`, round))); err != nil {
				t.Fatalf("round %d topic %d: %v", round, i, err)
			}
			if n := h.OpenJournals(); n > budget {
				t.Fatalf("%d journals open, budget %d", n, budget)
			}
			if n, ok := openIn(dir); ok && n > budget {
				t.Fatalf("%d descriptors on journal files, budget %d", n, budget)
			}
		}
	}
	h.Close()
	if n, ok := openIn(dir); ok && n != 0 {
		t.Errorf("%d journal files still open after Close", n)
	}

	h2 := NewHub(dir, 100)
	defer h2.Close()
	for i := range topics {
		tp, err := h2.Topic(fmt.Sprintf("w%d", i))
		if err != nil {
			t.Fatal(err)
		}
		hist := tp.History(0)
		if got := ids(hist); len(got) != 6 || got[0] != 1 || got[5] != 6 {
			t.Errorf("w%d after restart: ids %v, want 1..6", i, got)
		}
		if c := string(tp.Mark()); c != `{"r":2}` {
			t.Errorf("w%d mark %s", i, c)
		}
		items, err := tp.Publish(texts(1, "more"), nil)
		if err != nil || items[0].ID != 7 {
			t.Errorf("w%d next id %v, %v", i, items, err)
		}
	}
}

// openIn counts this process's descriptors on files in dir (Linux only).
func openIn(dir string) (int, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0, false
	}
	n := 0
	for _, e := range ents {
		if p, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(p, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n, true
}

// TestIdleJournalsGiveBackTheirFiles: journals not written for a while
// close their files (descriptors follow the workspaces at work), reopen on
// their next write, and lose nothing.
func TestIdleJournalsGiveBackTheirFiles(t *testing.T) {
	dir := t.TempDir()
	h := NewHub(dir, 100)
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	h.fds.now = func() time.Time { return now }
	var tps []*Topic
	for i := range 5 {
		tp, err := h.Topic(fmt.Sprintf("w%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tp.Publish(texts(1, "first"), nil); err != nil {
			t.Fatal(err)
		}
		tps = append(tps, tp)
	}
	now = now.Add(2 * time.Minute)
	for _, tp := range tps[:2] { // two agents still at work
		if _, err := tp.Publish(texts(1, "second"), nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := h.ReleaseIdle(time.Minute); n != 3 {
		t.Errorf("released %d idle journals, want 3", n)
	}
	if n := h.OpenJournals(); n != 2 {
		t.Errorf("%d journals open, want the 2 written within the minute", n)
	}
	if n, ok := openIn(dir); ok && n != 2 {
		t.Errorf("%d descriptors on journal files, want 2", n)
	}
	// An idle one wakes: its file reopens where its lines end.
	if _, err := tps[4].Publish(texts(1, "third"), nil); err != nil {
		t.Fatal(err)
	}
	h.Close()
	h2 := NewHub(dir, 100)
	defer h2.Close()
	tp, err := h2.Topic("w4")
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(tp.History(0)); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("w4 after restart: ids %v, want 1, 2", got)
	}
}

func TestOpenJournalsFor(t *testing.T) {
	for _, tt := range []struct {
		limit uint64
		want  int
	}{{0, 32}, {256, 32}, {1024, 128}, {2048, 256}, {65536, 256}} {
		if got := OpenJournalsFor(tt.limit); got != tt.want {
			t.Errorf("OpenJournalsFor(%d) = %d, want %d", tt.limit, got, tt.want)
		}
	}
}
