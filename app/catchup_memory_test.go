package main

import (
	"runtime/debug"
	"testing"
)

// TestCatchUpMemoryLimitIsLifted: the cold start's soft memory limit is
// set, then lifted back to what it was; a tighter one the person set is
// kept throughout.
func TestCatchUpMemoryLimitIsLifted(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	for _, before := range []int64{1 << 62, 2 << 30, catchUpMemory / 2} {
		debug.SetMemoryLimit(before)
		lift := limitCatchUpMemory()
		want := min(before, catchUpMemory)
		if got := debug.SetMemoryLimit(-1); got != want {
			t.Errorf("limit %d before: %d while catching up, want %d", before, got, want)
		}
		lift()
		if got := debug.SetMemoryLimit(-1); got != before {
			t.Errorf("limit %d before: %d once caught up, want it back", before, got)
		}
	}
}
