package driver

import (
	"fmt"
	"testing"
)

// TestSpliceKeepsALongHistoryInOneAllocation: a warm read whose rows
// came for no session keeps every earlier turn and session as they were,
// copied into a slice of each made once, not grown by doubling (a
// history of 14,000 turns was 15 MB of copies a read).
func TestSpliceKeepsALongHistoryInOneAllocation(t *testing.T) {
	const sessions, turns = 1000, 14
	old := make([]Place, sessions)
	was := make([]Turn, 0, sessions*turns)
	for i := range old {
		old[i] = Place{ID: fmt.Sprintf("s-%04d", i), Final: turns, All: turns}
		for range turns {
			was = append(was, Turn{Session: old[i].ID})
		}
	}
	var got []Turn
	var places []Place
	allocs := testing.AllocsPerRun(5, func() {
		sp, err := NewSplice(old, was)
		if err != nil {
			t.Fatal(err)
		}
		sp.Upto("s-0500")
		got, places = sp.Done()
	})
	if len(got) != len(was) || len(places) != len(old) || got[len(got)-1].Session != "s-0999" {
		t.Fatalf("%d turns, %d places kept, want %d and %d", len(got), len(places), len(was), len(old))
	}
	if allocs > 3 { // the Splice, its turns, its places
		t.Errorf("%v allocations, want at most 3", allocs)
	}
}
