package engine

import (
	"slices"
	"testing"
)

// sorted gives the tails by session id; one session's comes without an
// allocation, and a tail let go is not held on to by the slice reused.
func TestSortedTails(t *testing.T) {
	tails := func(ids ...string) map[string]*tail {
		m := make(map[string]*tail, len(ids))
		for _, id := range ids {
			m[id] = &tail{id: id}
		}
		return m
	}
	for _, tt := range []struct {
		name string
		ids  []string
		want []string
	}{
		{"none", nil, nil},
		{"one", []string{"b"}, []string{"b"}},
		{"three", []string{"c", "a", "b"}, []string{"a", "b", "c"}},
	} {
		w := &workspace{tails: tails(tt.ids...)}
		var got []string
		for _, tl := range w.sorted() {
			got = append(got, tl.id)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: sorted %v, want %v", tt.name, got, tt.want)
		}
	}

	w := &workspace{tails: tails("a")}
	if n := testing.AllocsPerRun(100, func() { w.sorted() }); n != 0 {
		t.Errorf("sorted allocates %v times for one session, want 0", n)
	}
	delete(w.tails, "a")
	w.tails["b"], w.tails["c"] = &tail{id: "b"}, &tail{id: "c"}
	w.sorted()
	if w.one[0] != nil {
		t.Errorf("sorted of two sessions still holds %q", w.one[0].id)
	}
}
