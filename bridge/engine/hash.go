package engine

import (
	"maps"
	"slices"
)

// fnv64 is 64-bit FNV-1a, fed strings and numbers directly: hash.Hash64
// wants a []byte for each, and the mark's shapes are hashed for every
// batch a workspace reads. Each string ends with a zero byte, so "ab","c"
// and "a","bc" differ.
type fnv64 uint64

func newFNV() fnv64 { return 14695981039346656037 }

func (h *fnv64) byte(c byte) {
	*h ^= fnv64(c)
	*h *= 1099511628211
}

func (h *fnv64) str(s string) {
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
	h.byte(0)
}

func (h *fnv64) bytes(b []byte) {
	for _, c := range b {
		h.byte(c)
	}
	h.byte(0)
}

func (h *fnv64) int(n int64) {
	for i := range 8 {
		h.byte(byte(n >> (8 * i)))
	}
}

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
