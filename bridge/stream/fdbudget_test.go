package stream

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
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
		if c := string(tp.Cursor()); c != `{"r":2}` {
			t.Errorf("w%d cursor %s", i, c)
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
