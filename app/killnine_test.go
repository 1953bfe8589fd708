package main

import (
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// streamAcrossKill follows the workspace in dir while write(n) writes
// item n for n from 1 to total-1 in the background (item 0 is written
// before), kills the bridge with SIGKILL once the stream has shown
// enough items of kind (each item is one event of that kind), starts it
// again on the same port and resumes the stream with Last-Event-ID until
// all total are seen. It returns every event seen, in order, having
// checked that each id follows the last: nothing lost, nothing repeated.
func streamAcrossKill(t *testing.T, home, dir string, total int, kind string, write func(n int)) []event.Event {
	t.Helper()
	port, _ := freePort()
	p := startBridgeProc(t, home, port)
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.LastEventID > 0 })
	c := openStream(t, p, ws.ID, 0)
	written := make(chan struct{})
	go func() {
		defer close(written)
		for n := 1; n < total; n++ {
			write(n)
		}
	}()
	seen := c.until(t, 30*time.Second, func(evs []event.Event) bool { return count(kind)(evs) >= total/3 })
	p.kill(syscall.SIGKILL)
	<-written
	for e := range c.events { // what the old connection delivered before it died
		seen = append(seen, e)
	}
	last := seen[len(seen)-1].ID

	p2 := startBridgeProc(t, home, port)
	c2 := openStream(t, p2, ws.ID, last)
	seen = append(seen, c2.until(t, 30*time.Second, func(evs []event.Event) bool {
		return count(kind)(seen)+count(kind)(evs) >= total
	})...)
	for i, e := range seen {
		if i > 0 && e.ID != seen[i-1].ID+1 {
			t.Errorf("id %d follows %d: lost or repeated events", e.ID, seen[i-1].ID)
		}
	}
	return seen
}
