package engine

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestReuseLetsTheTextGo: the batch a workspace keeps for its next sync
// holds no event of the last one (their text would stay alive in every
// idle workspace), and a backlog's large batch is not kept at all.
func TestReuseLetsTheTextGo(t *testing.T) {
	for _, tt := range []struct {
		name    string
		n       int
		wantNil bool
	}{{"small batch", 3, false}, {"backlog batch", maxKeptBatch + 1, true}} {
		t.Run(tt.name, func(t *testing.T) {
			evs := make([]event.Event, tt.n)
			for i := range evs {
				evs[i] = event.Event{Type: event.Assistant, Content: "a long answer"}
			}
			got := reuse(evs)
			if tt.wantNil {
				if got != nil {
					t.Errorf("kept a batch of capacity %d", cap(got))
				}
				return
			}
			if len(got) != 0 || cap(got) != tt.n {
				t.Fatalf("len %d cap %d, want an empty batch on the same array", len(got), cap(got))
			}
			for i, e := range got[:tt.n] {
				if e.Content != "" || e.Type != "" {
					t.Errorf("event %d still held: %+v", i, e)
				}
			}
		})
	}
}

// TestIdleWorkspacesHoldNoGoroutine: fifty followed workspaces, caught
// up and idle, leave no goroutine behind each (one each would hold a
// stack apiece all day); a line written to one of them still streams.
func TestIdleWorkspacesHoldNoGoroutine(t *testing.T) {
	const n = 50
	h := newHome(t)
	var paths, dirs []string
	for i := range n {
		dir, proj := h.workspace(fmt.Sprintf("w%02d", i))
		sid := fmt.Sprintf("cccccccc-1111-4111-8111-%012d", i)
		cwdOf[sid] = dir
		p := filepath.Join(proj, sid+".jsonl")
		h.write(p, prompt(sid, "hello"), answer(sid, fmt.Sprintf("m%d", i), "hi", "end_turn"))
		paths, dirs = append(paths, p), append(dirs, dir)
	}
	before := runtime.NumGoroutine()
	r := h.startWith(func(c *Config) { c.ScanEvery, c.SweepEvery = time.Hour, time.Hour })
	<-r.eng.Ready()
	select {
	case <-r.eng.CaughtUp():
	case <-time.After(10 * time.Second):
		t.Fatal("never caught up")
	}
	if got := len(r.eng.Workspaces()); got != n {
		t.Fatalf("%d workspaces followed, want %d", got, n)
	}
	var now int
	waitFor(t, "the workspaces' goroutines to end", func() bool {
		now = runtime.NumGoroutine()
		return now-before < n/2
	}, func() { t.Logf("%d goroutines before, %d with %d idle workspaces", before, now, n) })

	id := r.waitWorkspace(t, dirs[7])
	sid := sessionID(paths[7])
	h.write(paths[7], prompt(sid, "still here"))
	r.collect(t, id, 0, has(event.User, "still here"))
}

// TestColdTailOnlyAtStart: a session already there when the bridge starts
// is read from ColdTailBytes back (a cold start reads a thousand of
// them); one first seen later, likely new, is read from TailBytes back,
// so a session that grew fast before it was noticed keeps its start.
func TestColdTailOnlyAtStart(t *testing.T) {
	h := newHome(t)
	const a, b = "dddddddd-1111-4111-8111-0000000000a1", "dddddddd-1111-4111-8111-0000000000b2"
	dir, pa, pb := h.twoSessions("cold", a, b)
	pad := strings.Repeat("x", 1000)
	long := func(sid, first string) []string {
		lines := []string{prompt(sid, first)}
		for i := range 10 { // ~10 KB: past the cold tail, well within the tail
			lines = append(lines, answer(sid, fmt.Sprintf("m%d", i), pad, "end_turn"))
		}
		return append(lines, prompt(sid, "last"))
	}
	h.write(pa, long(a, "before start")...)
	r := h.startWith(func(c *Config) { c.TailBytes, c.ColdTailBytes = 1<<20, 2048 })
	id := r.waitWorkspace(t, dir)
	<-r.eng.CaughtUp()
	evs := r.collect(t, id, 0, has(event.User, "last"))
	if has(event.User, "before start")(evs) {
		t.Errorf("a session there at start was read whole: %s", summary(evs))
	}
	h.write(pb, long(b, "after start")...)
	evs = r.collect(t, id, 0, func(evs []event.Event) bool {
		for _, e := range evs {
			if e.SessionID == b && e.Type == event.User && e.Content == "last" {
				return true
			}
		}
		return false
	})
	if !has(event.User, "after start")(evs) {
		t.Errorf("a session first seen after start lost its start: %s", summary(evs))
	}
}
