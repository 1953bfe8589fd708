package usage

import "math/bits"

// radixBits is the width of one digit of sortByAt.
const radixBits = 11

// sortByAt sorts ps by at, those equal staying in the order they came:
// a radix sort, least significant digit first, of at less the least of
// them (a history's times span far fewer bits than 64), skipping the
// digits all share. spare, if as long as ps, is the room it sorts
// through. It returns the sorted places: ps or spare.
func sortByAt(ps, spare []place) []place {
	if len(ps) < 2 {
		return ps
	}
	lo, hi := ps[0].at, ps[0].at
	for i := range ps {
		lo, hi = min(lo, ps[i].at), max(hi, ps[i].at)
	}
	width := bits.Len64(uint64(hi - lo))
	if len(spare) < len(ps) {
		spare = make([]place, len(ps))
	}
	from, to := ps, spare[:len(ps)]
	var count [1 << radixBits]int
	for shift := 0; shift < width; shift += radixBits {
		clear(count[:])
		for i := range from {
			count[(uint64(from[i].at-lo)>>shift)&(1<<radixBits-1)]++
		}
		if count[(uint64(from[0].at-lo)>>shift)&(1<<radixBits-1)] == len(from) {
			continue // one digit for all
		}
		sum := 0
		for d, n := range count {
			count[d] = sum
			sum += n
		}
		for i := range from {
			d := (uint64(from[i].at-lo) >> shift) & (1<<radixBits - 1)
			to[count[d]] = from[i]
			count[d]++
		}
		from, to = to, from
	}
	return from
}

// sortByTag sorts ps by tag (a small number), those equal staying in the
// order they came, through spare (as long as ps); it returns the sorted
// places: ps or spare.
func sortByTag(ps, spare []place, tags int) []place {
	if tags < 2 {
		return ps
	}
	count := make([]int, tags)
	for i := range ps {
		count[ps[i].tag]++
	}
	sum := 0
	for d, n := range count {
		count[d] = sum
		sum += n
	}
	to := spare[:len(ps)]
	for i := range ps {
		to[count[ps[i].tag]] = ps[i]
		count[ps[i].tag]++
	}
	return to
}
