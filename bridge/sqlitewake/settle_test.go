package sqlitewake

import (
	"testing"
	"time"
)

// TestSettlingReadsUntilTheEventsCommitIsSeen: after a file event, reads
// go on until one has seen that event's commit. Writers take turns, so
// when an event comes only its own commit can still be unseen, unless an
// earlier event's was: a commit found then may be the earlier one, and
// the reads go on. The steps are (ms since the first event, what
// happened): "event", or a read that found a commit ("found") or none
// ("none"), with whether another read should follow.
func TestSettlingReadsUntilTheEventsCommitIsSeen(t *testing.T) {
	type step struct {
		at    float64 // ms
		what  string
		again bool // after a read: read again
	}
	cases := []struct {
		name  string
		steps []step
	}{
		{"a commit seen by the event's read", []step{{0, "event", false}, {0.1, "found", false}}},
		{"a commit still syncing when the event came", []step{
			{0, "event", false}, {0.1, "none", true}, {0.6, "none", true}, {1.1, "found", false}}},
		// The writer wrote commit B while A, announced earlier, was
		// unseen: the read finds A, and B is still syncing.
		{"a second event before the first one's commit was seen", []step{
			{0, "event", false}, {0.1, "none", true}, {0.5, "event", false}, {0.6, "found", true},
			{1.1, "none", true}, {1.6, "found", false}}},
		{"the read after the ambiguous one finds the commit", []step{
			{0, "event", false}, {0.1, "none", true}, {0.5, "event", false}, {0.6, "found", true}, {1.1, "found", false}}},
		{"an event after a commit was seen starts afresh", []step{
			{0, "event", false}, {0.1, "found", false}, {4, "event", false}, {4.1, "found", false}}},
		{"no commit after a checkpoint's event: reads thin out, then stop", []step{
			{0, "event", false}, {0.1, "none", true}, {9.9, "none", true}, {10, "none", true},
			{49.9, "none", true}, {249.9, "none", true}, {250, "none", false}, {260, "found", false}}},
		{"a read with no event waiting (poll, wake)", []step{{0, "found", false}, {1, "none", false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s settling
			t0 := time.Unix(1000, 0)
			for i, st := range c.steps {
				now := t0.Add(time.Duration(st.at * float64(time.Millisecond)))
				if st.what == "event" {
					s.event(now)
					continue
				}
				wait, again := s.read(st.what == "found", now)
				if again != st.again {
					t.Fatalf("step %d (%v ms, %s): read again %v, want %v", i, st.at, st.what, again, st.again)
				}
				if again && (wait <= 0 || wait > 10*time.Millisecond) {
					t.Fatalf("step %d: wait %v", i, wait)
				}
				if s.waiting() != again {
					t.Fatalf("step %d: waiting %v with read again %v", i, s.waiting(), again)
				}
			}
		})
	}
}
