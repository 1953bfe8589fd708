package usage

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRadixSortsAsCompareSorts: sortByAt puts places in the order a
// comparison sort by (at, place) puts them, and sortByTagAt in that of
// one by (tag, at, place), for times all alike, close together, in
// milliseconds, spanning every bit, below zero, and with many ties; in
// place, sortByAt takes no memory (the usage command runs without a
// collector: a place put on the heap each is an RSS of 16 B a turn).
func TestRadixSortsAsCompareSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 29))
	tests := []struct {
		name string
		at   func() int64
	}{
		{"all alike", func() int64 { return 1_795_000_000_000_000_000 }},
		{"a minute apart at most", func() int64 { return 1_795_000_000_000_000_000 + r.Int64N(60e9) }},
		{"milliseconds over a year", func() int64 { return 1_795_000_000_000_000_000 + r.Int64N(365*86400e3)*1e6 }},
		{"every bit", func() int64 { return int64(r.Uint64()) }},
		{"the ends", func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1}[r.IntN(4)] }},
		{"before 1970", func() int64 { return -r.Int64N(1e18) }},
		{"many ties", func() int64 { return int64(r.IntN(5)) * 3_600e9 }},
		// A month of turns crowds into a digit or two beside one a year
		// later: those digits are spread again.
		{"a month and a year later", func() int64 {
			if r.IntN(100) == 0 {
				return 1_795_000_000_000_000_000 + 365*86400e9 + r.Int64N(3_600e9)
			}
			return 1_795_000_000_000_000_000 + r.Int64N(30*86400e3)*1e6
		}},
		{"a month and ties, a year later", func() int64 {
			if r.IntN(100) == 0 {
				return 1_795_000_000_000_000_000 + 365*86400e9
			}
			return 1_795_000_000_000_000_000 + r.Int64N(1000)*1e6
		}},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 2, 3, 100, 5000} {
			ps := make([]place, n)
			for i := range ps {
				ps[i] = place{at: tt.at(), i: int32(i), tag: int32(r.IntN(3))}
			}
			want := slices.Clone(ps)
			slices.SortFunc(want, func(a, b place) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.i, b.i)) })
			got := slices.Clone(ps)
			sortByAt(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %d places: by time %v, want %v", tt.name, n, got[:min(n, 8)], want[:min(n, 8)])
			}
			slices.SortFunc(want, func(a, b place) int {
				return cmp.Or(cmp.Compare(a.tag, b.tag), cmp.Compare(a.at, b.at), cmp.Compare(a.i, b.i))
			})
			got = slices.Clone(ps)
			if sortByTagAt(got, 3); !slices.Equal(got, want) {
				t.Fatalf("%s, %d places: by tag and time %v, want %v", tt.name, n, got[:min(n, 8)], want[:min(n, 8)])
			}
		}
	}
	ps := make([]place, 5000)
	for i := range ps {
		ps[i] = place{at: r.Int64N(365 * 86400e9), i: int32(i)}
	}
	w := make([]place, len(ps))
	if allocs := testing.AllocsPerRun(10, func() { copy(w, ps); sortByAt(w) }); allocs != 0 {
		t.Errorf("sortByAt of %d places: %v allocations, want none", len(ps), allocs)
	}
}
