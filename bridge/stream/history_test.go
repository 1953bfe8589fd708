package stream

import (
	"runtime"
	"slices"
	"testing"
)

func TestHistoryKeepsTheLastMax(t *testing.T) {
	for _, tc := range []struct {
		name     string
		max, add int
	}{
		{"empty", 8, 0},
		{"under max", 8, 5},
		{"exactly max", 8, 8},
		{"one over", 8, 9},
		{"many times over", 8, 100},
		{"max of one", 1, 10},
		{"large", 2000, 5001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHistory(tc.max, nil)
			for i := range tc.add {
				h.add(Item{ID: int64(i + 1), Data: []byte("x")})
				if n := len(h.kept()); n > tc.max {
					t.Fatalf("after %d adds %d kept, max %d", i+1, n, tc.max)
				}
			}
			var want []int64
			for id := max(1, tc.add-tc.max+1); id <= tc.add; id++ {
				want = append(want, int64(id))
			}
			if got := ids(h.kept()); !slices.Equal(got, want) {
				t.Fatalf("kept %v, want %v", got, want)
			}
			// A dropped event's JSON must not stay reachable from the
			// slots behind or past the kept ones.
			for i, it := range h.items[:h.start] {
				if it.Data != nil {
					t.Fatalf("dropped slot %d still holds event %d", i, it.ID)
				}
			}
			for i, it := range h.items[len(h.items):cap(h.items)] {
				if it.Data != nil {
					t.Fatalf("spare slot %d still holds event %d", i, it.ID)
				}
			}
		})
	}
}

func TestNewHistoryKeepsTheLastMaxLoaded(t *testing.T) {
	loaded := []Item{{ID: 1}, {ID: 2}, {ID: 3}, {ID: 4}}
	h := newHistory(3, loaded)
	if got := ids(h.kept()); !slices.Equal(got, []int64{2, 3, 4}) {
		t.Fatalf("kept %v, want [2 3 4]", got)
	}
	h.add(Item{ID: 5})
	if got := ids(h.kept()); !slices.Equal(got, []int64{3, 4, 5}) {
		t.Fatalf("kept %v, want [3 4 5]", got)
	}
}

// A full topic used to copy its whole history (2000 items, 144 KB) for
// every event published; a busy agent's every line paid it.
func TestPublishingToAFullTopicDoesNotCopyItsHistory(t *testing.T) {
	tp, err := NewHub("", DefaultHistory).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	for range DefaultHistory + 10 {
		tp.Publish(texts(1, "fill"), nil)
	}
	const n = 1000
	evs := texts(1, "one more")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		if _, err := tp.Publish(evs, nil); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / n
	if per > 4<<10 {
		t.Fatalf("publishing one event to a full topic allocates %d bytes; its history is %d bytes", per, DefaultHistory*72)
	}
	if got := len(tp.History(0)); got != DefaultHistory {
		t.Fatalf("history holds %d events, want %d", got, DefaultHistory)
	}
}
