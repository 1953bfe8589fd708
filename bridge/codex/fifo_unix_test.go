//go:build unix

package codex

import (
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/testkit/fifotest"
)

// Issue 24, finding 4: a FIFO named like a rollout in Codex's sessions
// folder froze discovery (and the bridge's shutdown behind it): readMeta
// opened it with a plain open, which waits for a writer forever. It is
// left out at once; the real rollouts beside it are still listed.
func TestRolloutFIFOIsSkipped(t *testing.T) {
	h, paths := home(t)
	fifo := filepath.Join(filepath.Dir(paths["0.169.0"]), "rollout-2026-12-02T11-00-00-ffffffff-0000-0000-0000-00000000000f.jsonl")
	fifotest.Make(t, fifo, 0o644)
	type result struct {
		got []SessionFile
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, err := Sessions(h, time.Time{})
		done <- result{got, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || len(r.got) != 2 {
			t.Fatalf("sessions beside a FIFO: %+v, %v; want the two rollouts", r.got, r.err)
		}
		for _, s := range r.got {
			if s.Path == fifo {
				t.Errorf("the FIFO was listed: %+v", s)
			}
		}
	case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
		t.Fatal("listing Codex sessions blocked on a FIFO named like a rollout")
	}
}
