package engine

import (
	"maps"
	"slices"
)

// eachSorted calls fn for m's entries in key order; a map of one entry,
// a workspace's usual session, needs no sorted copy of its keys.
func eachSorted[V any](m map[string]V, fn func(string, V)) {
	if len(m) <= 1 {
		for k, v := range m {
			fn(k, v)
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fn(k, m[k])
	}
}
