package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"conductorbridge/bridge/discover"
)

// TestWakeTimerFiresOncePerReset: both timers (the timerfd one on Linux,
// the portable one) fire once per Reset, not after Stop, and a Reset
// drops a fire that was not received.
func TestWakeTimerFiresOncePerReset(t *testing.T) {
	for name, newTimer := range map[string]func(time.Duration) wakeTimer{
		"platform": newWakeTimer,
		"portable": func(d time.Duration) wakeTimer { return newGoTimer(d) },
	} {
		t.Run(name, func(t *testing.T) {
			tm := newTimer(time.Millisecond)
			defer tm.Close()
			recv := func(what string) {
				t.Helper()
				select {
				case <-tm.C():
				case <-time.After(5 * time.Second):
					t.Fatalf("%s: the timer never fired", what)
				}
			}
			recv("first")
			time.Sleep(5 * time.Millisecond) // a fire left unreceived…
			tm.Reset(time.Hour)              // …is dropped by Reset
			select {
			case <-tm.C():
				t.Fatal("a fire from before Reset was delivered")
			default:
			}
			tm.Reset(time.Millisecond)
			recv("after Reset")
			tm.Reset(time.Millisecond)
			tm.Stop()
			tm.Reset(2 * time.Millisecond)
			recv("after Stop and Reset")
			select {
			case <-tm.C():
				t.Fatal("fired twice for one Reset")
			case <-time.After(20 * time.Millisecond):
			}
		})
	}
}

// scanCounter counts the scans the engine runs.
type scanCounter struct {
	Scanner
	n atomic.Int64
}

func (c *scanCounter) Scan(ctx context.Context) ([]discover.Workspace, error) {
	c.n.Add(1)
	return c.Scanner.Scan(ctx)
}

// TestBackedOffSweepBringsTheScan: once the sweep has backed off all the
// way, each sweep asks for a scan in the same wake-up, so the scan timer
// (here an hour) never wakes an idle bridge on its own.
func TestBackedOffSweepBringsTheScan(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("sleepy")
	const sid = "eeeeeeee-1111-4111-8111-0000000000e2"
	cwdOf[sid] = dir
	h.write(proj+"/"+sid+".jsonl", prompt(sid, "hello"), answer(sid, "m1", "hi", "end_turn"))
	var sc *scanCounter
	r := h.startWith(func(c *Config) {
		sc = &scanCounter{Scanner: c.Scanner}
		c.Scanner = sc
		c.SweepEvery, c.IdleSweepEvery, c.ScanEvery, c.IdleScanEvery = 2*time.Millisecond, 10*time.Millisecond, time.Hour, time.Hour
	})
	r.waitWorkspace(t, dir)
	waitFor(t, "the sweep to back off", r.eng.sweepIdle.Load)
	base := sc.n.Load()
	waitFor(t, "scans brought by idle sweeps", func() bool { return sc.n.Load() >= base+3 })
}
