package engine

import (
	"context"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// A scan's new picture of a workspace that lands while the workspace is
// reading is listed: the scan stores the picture, then asks for a
// listing, and a read between the two took the old picture and spent the
// listing on it. The tab resumed under a new id then kept its old session
// followed until the next change in the list (TestTabResumedUnderANewID
// timed out so in a CI run). The test stages that read in the workspace's
// goroutine: the picture held back while the read lists, stored after.
func TestAPictureThatLandsMidReadIsListed(t *testing.T) {
	h := newHome(t)
	const old, fresh = "aaaaaaaa-1111-4111-8111-0000000000c1", "aaaaaaaa-1111-4111-8111-0000000000c2"
	dir, po, pf := h.twoSessions("midread", old, fresh)
	h.write(po, prompt(old, "before"), answer(old, "m1", "ok", "end_turn"))
	ts := &tabScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}}
	watch := true
	r := h.startWith(func(c *Config) {
		c.Scanner, c.WatchDirs = ts, &watch
		c.ScanEvery, c.SweepEvery = time.Hour, time.Hour // nothing but the test's scans and file events
	})
	ctx := context.Background()
	ts.set(dir, discover.Session{ID: old, ConductorID: "tab", Agent: "claude", Active: true, Transcript: po})
	r.eng.Rescan(ctx)
	id := r.waitPrompt(t, dir, "before")
	// The resumed tab's file is found by its creation first, a stranger
	// beside the tab's session, as it is when Conductor's database is
	// written after the file.
	h.write(pf, prompt(fresh, "after"))
	evs := r.collect(t, id, 0, has(event.User, "after"))
	after := evs[len(evs)-1].ID

	ts.set(dir, discover.Session{ID: fresh, ConductorID: "tab", Agent: "claude", Active: true, Transcript: pf})
	w, _ := r.eng.followed(id)
	staged := make(chan struct{})
	w.enqueue(func() {
		defer close(staged)
		r.eng.Rescan(ctx) // the new picture and the ask to list
		pending := w.update.Swap(nil)
		if pending == nil {
			t.Error("the scan handed the workspace no new picture")
			return
		}
		w.readAll() // a read that took its picture before the scan stored it
		w.update.Store(pending)
	})
	<-staged
	r.collect(t, id, after, func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Type == event.Session && e.SessionID == old && e.Reason == SessionEnd {
				return true
			}
		}
		return false
	})
	var last Info
	waitFor(t, "one session listed", func() bool {
		last, _ = r.eng.Workspace(id)
		return len(last.Sessions) == 1 && last.Sessions[0].SessionID == fresh && last.Sessions[0].ConductorID == "tab"
	}, func() { t.Logf("sessions: %+v", last.Sessions) })
}
