package engine

import (
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestStreamsByPollingWhenWatchesRunOut caps the watches at one, which
// the projects folder takes: the workspace's transcript folder cannot be
// watched, as when inotify's watches or kqueue's descriptors run out.
// Its lines must still stream, found by the sweep.
func TestStreamsByPollingWhenWatchesRunOut(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("capped")
	cwdOf["cap1"] = dir
	s1 := filepath.Join(proj, "33333333-3333-4333-8333-333333333333.jsonl")
	h.write(s1, prompt("cap1", "before"), answer("cap1", "m1", "one", "end_turn"))
	r := h.startWith(func(c *Config) { c.MaxWatches = 1 })
	id, last := r.firstTurn(t, dir)

	r.eng.mu.RLock()
	watched, polled := r.eng.watched[proj], r.eng.polled[proj]
	r.eng.mu.RUnlock()
	if watched || !polled {
		t.Fatalf("transcript folder watched=%v polled=%v, want polled only", watched, polled)
	}
	for i, text := range []string{"after one", "after two"} {
		time.Sleep(time.Duration(i) * 300 * time.Millisecond) // let the sweep idle between writes
		h.write(s1, prompt("cap1", text))
		evs := r.collect(t, id, last, has(event.User, text))
		last = evs[len(evs)-1].ID
	}
}

// TestSweepKeepsItsBaseRateWhilePolling: an idle sweep backs off, but not
// while some path has no watch, since the sweep is all that path has.
func TestSweepKeepsItsBaseRateWhilePolling(t *testing.T) {
	tests := []struct {
		name   string
		polled bool
		want   func(base, got time.Duration) bool
	}{
		{"all watched backs off", false, func(base, got time.Duration) bool { return got > base }},
		{"one polled stays at base", true, func(base, got time.Duration) bool { return got == base }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := New(Config{SweepEvery: 10 * time.Millisecond})
			if tt.polled {
				e.polled["/nowhere"] = true
			}
			sw := newSweeper(e)
			var got time.Duration
			for range 5 {
				got = sw.sweep()
			}
			if !tt.want(sw.base, got) {
				t.Errorf("interval after 5 idle sweeps: %v (base %v)", got, sw.base)
			}
		})
	}
}
