package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBenchConductorTimesEveryFrame: the Conductor record run times every
// frame it commits, each through the follower and parser to its event,
// and reports p50, p99 and max.
func TestBenchConductorTimesEveryFrame(t *testing.T) {
	r := &benchReport{}
	if err := runBenchConductor(context.Background(), r, t.TempDir(), benchConductor{tabs: 3, frames: 4, history: 100}); err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) != 3 {
		t.Fatalf("figures %+v, want p50, p99 and max", r.Figures)
	}
	for _, f := range r.Figures {
		if !f.Known || f.Unit != "ms" || !strings.Contains(f.Conditions, "12 of 12 frames arrived, 0 bad rows") {
			t.Errorf("%s: %v %s known=%v (%s)", f.Name, f.Value, f.Unit, f.Known, f.Conditions)
		}
	}
}

// TestBenchRowsTimesEveryRowThroughTheBridge: the row run's tabs, over
// rows of other tabs (its conditions say how many), stream
// every row they commit through a real bridge, each timed to its SSE
// event, and it reports p50, p99 and max, from the commit call and from
// its return.
func TestBenchRowsTimesEveryRowThroughTheBridge(t *testing.T) {
	r := &benchReport{}
	if err := runBenchRows(context.Background(), r, binary, t.TempDir(), benchRows{tabs: 3, rows: 4, every: 20 * time.Millisecond, history: 1000}); err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) < 3 {
		t.Fatalf("figures %+v, want p50, p99 and max", r.Figures)
	}
	for _, f := range r.Figures {
		if !f.Known || f.Unit != "ms" || !strings.Contains(f.Conditions, "12/12 delivered") || !strings.Contains(f.Conditions, "1000 rows of history") {
			t.Errorf("%s: %v %s known=%v (%s)", f.Name, f.Value, f.Unit, f.Known, f.Conditions)
		}
	}
	if !slices.ContainsFunc(r.Figures, func(f benchFigure) bool { return strings.Contains(f.Name, "commit returned") }) {
		t.Errorf("figures %+v, want the ones from the commit's return", r.Figures)
	}
}
