package browse

import (
	"slices"
	"testing"

	"conductorbridge/benchkit/browseserver"
	"conductorbridge/bridge/event"
)

// settle waits until the look a sweep started is over: the watch's
// goroutine has ended, or it follows the server.
func (e *env) settle() {
	e.t.Helper()
	e.waitWatch("the look to end", func(w *watch) bool { return !w.running || w.live })
}

// A browse server whose page is stuck (gstack's /health says "unhealthy"
// while a JS dialog is open) is given up on after Retries attempts, and
// the log says once that it is unhealthy, not that it is not gstack's.
// With its state file untouched, later sweeps try it again, one attempt
// each, less and less often: the 1st, 2nd, 4th, 8th… sweep after. Once
// healthy, the next of those attempts follows it.
func TestUnhealthyBrowseServerIsTriedAgainOnTheSweep(t *testing.T) {
	e := newEnv(t) // Retries: 3
	s := e.standIn(browseserver.Options{})
	s.SetHealthy(false)
	e.sweep()
	waitFor(t, "the attempts to end", func() bool { return e.logs.Count("not followed after") == 1 })
	e.idle()
	if n := s.HealthChecks(); n != 3 {
		t.Errorf("%d attempts before giving up, want Retries (3)", n)
	}

	var asked []int // the sweeps that asked /health
	for i := 1; i <= 40; i++ {
		before := s.HealthChecks()
		e.sweep()
		e.settle()
		if n := s.HealthChecks() - before; n > 0 {
			asked = append(asked, i)
			if n != 1 {
				t.Errorf("sweep %d: %d attempts, want 1", i, n)
			}
		}
	}
	if want := []int{1, 2, 4, 8, 16, 32}; !slices.Equal(asked, want) {
		t.Errorf("sweeps that tried the server again: %v, want %v", asked, want)
	}
	if e.live() {
		t.Error("an unhealthy server is followed")
	}
	for said, want := range map[string]int{
		"browse server unhealthy":    1,
		"not gstack's browse server": 0,
		"not followed after":         1,
	} {
		if n := e.logs.Count(said); n != want {
			t.Errorf("%q said %d times, want %d:\n%s", said, n, want, e.logs)
		}
	}
	e.agentStreams()

	s.SetHealthy(true) // the dialog is closed
	for i := 0; i < 64 && !e.live(); i++ {
		e.sweep()
		e.settle()
	}
	if !e.live() {
		t.Fatal("healthy again, and still not followed")
	}
	s.Command("goto", "https://example.com/after-the-dialog")
	if evs := e.waitBrowse(2); evs[1].Action != event.BrowseEnd || evs[1].Command != "goto" || !evs[1].OK {
		t.Errorf("browse events: %+v", evs)
	}
	if n := s.Subscribers(); n != 1 {
		t.Errorf("%d streams open to the browse server", n)
	}
}
