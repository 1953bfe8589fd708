package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// statCounter counts the stats a sweep makes, by path.
type statCounter struct {
	mu    sync.Mutex
	paths map[string]int
}

func (c *statCounter) stat(p string) (os.FileInfo, error) {
	c.mu.Lock()
	c.paths[p]++
	c.mu.Unlock()
	return os.Stat(p)
}

// take returns how many of paths were statted since the last take.
func (c *statCounter) take(paths []string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, p := range paths {
		n += c.paths[p]
	}
	c.paths = map[string]int{}
	return n
}

// TestIdleSweepLeavesQuietWatchedPathsToTheirWatches: a sweep over idle
// workspaces whose sessions were last written long ago stats, after its
// first look, none of their followed files (their watches tell of any
// write: their folders' where folders are watched, else their own), and
// their folders only where folders are not watched (for new files); a
// sweep every fullSweepEvery, and the one after a watcher error, still
// stats them all; and a write to one of them is still read, told by a
// watch.
func TestIdleSweepLeavesQuietWatchedPathsToTheirWatches(t *testing.T) {
	for _, watchDirs := range []bool{true, false} {
		t.Run(fmt.Sprintf("folders watched %v", watchDirs), func(t *testing.T) { idleSweep(t, watchDirs) })
	}
}

func idleSweep(t *testing.T, watchDirs bool) {
	const workspaces, sessions = 8, 3
	h := newHome(t)
	var dirs, folders []string
	long := time.Now().Add(-time.Hour)
	for i := range workspaces {
		dir, proj := h.workspace(fmt.Sprintf("quiet%d", i))
		for j := range sessions {
			sid := fmt.Sprintf("cccccccc-%04d-4000-8000-%012d", i, j)
			cwdOf[sid] = dir
			p := filepath.Join(proj, sid+".jsonl")
			h.write(p, prompt(sid, "hello"), answer(sid, "m"+sid, "hi", "end_turn"))
			if err := os.Chtimes(p, long, long); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(proj, long, long); err != nil {
			t.Fatal(err)
		}
		dirs, folders = append(dirs, dir), append(folders, proj)
	}
	r := h.startWith(func(c *Config) {
		c.WatchDirs = &watchDirs
		c.SweepEvery, c.ScanEvery, c.IdleScanEvery = time.Hour, time.Hour, time.Hour
	})
	byDir := map[string]string{}
	for _, dir := range dirs {
		byDir[dir] = r.waitWorkspace(t, dir)
	}
	var followed []string
	waitFor(t, "every workspace following its session", func() bool {
		followed = followed[:0]
		r.eng.mu.RLock()
		defer r.eng.mu.RUnlock()
		for _, w := range r.eng.workspaces {
			followed = append(followed, w.snap.Load().paths...)
		}
		return len(followed) >= workspaces
	})

	c := &statCounter{paths: map[string]int{}}
	s := newSweeper(r.eng)
	s.stat = c.stat
	all := append(append([]string{}, followed...), folders...)
	s.sweep()
	if got := c.take(all); got != len(all) {
		t.Fatalf("the first sweep statted %d of the %d followed files and folders, want each once", got, len(all))
	}
	want := 0 // files and folders are all watched
	if !watchDirs {
		want = len(folders) // each sweep looks for new files in them
	}
	for i := range 3 {
		s.sweep()
		if got := c.take(all); got != want {
			t.Errorf("idle sweep %d statted %d of %d quiet followed files and folders, want %d", i+2, got, len(all), want)
		}
	}
	s.lastFull = s.lastFull.Add(-fullSweepEvery)
	s.sweep()
	if got := c.take(all); got != len(all) {
		t.Errorf("the sweep due every %v statted %d of %d, want all", fullSweepEvery, got, len(all))
	}
	s.sweep()
	c.take(all)
	r.eng.watchErrs.Add(1) // the watcher's queue overflowed: events were lost
	s.sweep()
	if got := c.take(all); got != len(all) {
		t.Errorf("the sweep after a watcher error statted %d of %d, want all", got, len(all))
	}

	p := followed[0]
	sid := strings.TrimSuffix(filepath.Base(p), ".jsonl")
	h.write(p, prompt(sid, "are you there"))
	r.collect(t, byDir[cwdOf[sid]], 0, has(event.User, "are you there"))
}
