package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestTurnEndFindsSubagentsFirst: a turn that ends by a quiet spell (2.0
// writes no stop reason) or by the Stop hook's word counts a subagent file
// made during it, even when the file's creation event has not reached the
// workspace yet — on a busy machine the watcher's goroutine lags behind
// the quiet spell's timer. That lag is staged in the workspace's own
// goroutine: the file is made, the event counted, and the session noted
// as having looked since (as if the event were still on its way); then
// the turn ends.
func TestTurnEndFindsSubagentsFirst(t *testing.T) {
	for _, by := range []string{"quiet spell", "Stop hook"} {
		t.Run(by, func(t *testing.T) {
			h := newHome(t)
			sid := "88888888-0000-4000-8000-000000000008"
			dir, main := h.session("endlook", sid)
			h.write(main, prompt(sid, "go"))
			watch := true
			r := h.startWith(func(c *Config) {
				c.WatchDirs = &watch
				c.SweepEvery, c.ScanEvery = time.Hour, time.Hour // nothing but file events
				c.QuietAfter = time.Hour                         // the test says when the spell is over
			})
			id := r.waitPrompt(t, dir, "go")
			h.write(main, answer(sid, "m1", "done", "")) // 10 in, 5 out; no stop reason: the end is inferred
			evs := r.collect(t, id, 0, has(event.Assistant, "done"))
			after := evs[len(evs)-1].ID

			w, _ := r.eng.followed(id)
			staged := make(chan error, 1)
			w.enqueue(func() {
				before := r.eng.folders.Load()
				err := os.WriteFile(filepath.Join(filepath.Dir(main), "agent-c3.jsonl"), []byte(subLine(sid, "from the subagent")+"\n"), 0o644)
				for deadline := time.Now().Add(5 * time.Second); err == nil && r.eng.folders.Load() == before && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				tl := w.tails[sid]
				tl.quiet, tl.lookedAt = true, r.eng.folders.Load() // the event not handled yet
				if by == "quiet spell" {
					w.quietSync()
				}
				staged <- err
			})
			if err := <-staged; err != nil {
				t.Fatal(err)
			}
			if by == "Stop hook" {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if !r.eng.TurnEnded(ctx, id, Call{SessionID: sid}) {
					t.Fatal("the Stop hook's call was not taken")
				}
			}
			evs = r.collect(t, id, after, has(event.TurnComplete, ""))
			var tc event.Event
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					tc = e
					break
				}
			}
			// The subagent's line says 1 in and 1 out; the session's own 10 and 5.
			wantSub := event.Usage{InputTokens: 1, OutputTokens: 1}
			if tc.SubagentUsage != wantSub || tc.Usage != (event.Usage{InputTokens: 11, OutputTokens: 6}) {
				t.Errorf("turn usage %+v (subagents %+v), want 11 in and 6 out (subagents %+v)", tc.Usage, tc.SubagentUsage, wantSub)
			}
		})
	}
}
