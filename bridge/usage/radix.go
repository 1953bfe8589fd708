package usage

import (
	"math/bits"
	"slices"
)

// radixBits is the width of the digit sortByAt spreads places by.
const radixBits = 11

// sortByAt sorts ps in place by at, then by i (the order they came, so
// those equal keep it): a radix sort on the top digit of at less the
// least of them (in place, as an American flag sort: the history's
// places take no second room), then each digit's places the same way
// again when they are many (a history whose times crowd into a few
// digits: a month of turns and one a year later), else by a comparison
// sort of those few.
func sortByAt(ps []place) {
	if len(ps) < 2 {
		return
	}
	lo, hi := ps[0].at, ps[0].at
	for i := range ps {
		lo, hi = min(lo, ps[i].at), max(hi, ps[i].at)
	}
	if lo == hi {
		// All at once: in the order they came.
		slices.SortFunc(ps, func(a, b place) int { return int(a.i - b.i) })
		return
	}
	shift := max(bits.Len64(uint64(hi-lo))-radixBits, 0)
	var ends [1 << radixBits]int
	spread(ps, ends[:], func(p place) int { return int(uint64(p.at-lo) >> shift) })
	start := 0
	for _, end := range ends {
		switch {
		case end-start > radixFew && shift > 0:
			sortByAt(ps[start:end]) // a narrower range: spread again
		case end-start > 1:
			insertionByAt(ps[start:end])
		}
		start = end
	}
}

// radixFew is how many places of one digit are sorted by comparison;
// more are spread again by the next digit.
const radixFew = 64

// insertionByAt sorts a few places by at, then by i.
func insertionByAt(ps []place) {
	for j := 1; j < len(ps); j++ {
		p := ps[j]
		k := j
		for ; k > 0 && (ps[k-1].at > p.at || ps[k-1].at == p.at && ps[k-1].i > p.i); k-- {
			ps[k] = ps[k-1]
		}
		ps[k] = p
	}
}

// byAtThenI orders places by at, then by i.
func byAtThenI(a, b place) int {
	switch {
	case a.at < b.at:
		return -1
	case a.at > b.at:
		return 1
	}
	return int(a.i - b.i)
}

// sortByTagAt sorts ps in place by tag (a small number below tags), then
// by at, then by i.
func sortByTagAt(ps []place, tags int) {
	ends := make([]int, max(tags, 1))
	spread(ps, ends, func(p place) int { return int(p.tag) })
	start := 0
	for _, end := range ends {
		sortByAt(ps[start:end])
		start = end
	}
}

// spread puts ps in place in the order of their digit (below len(ends)),
// those of one digit in no particular order, and sets ends[d] to where
// digit d's places end.
func spread(ps []place, ends []int, digit func(place) int) {
	clear(ends)
	for i := range ps {
		ends[digit(ps[i])]++
	}
	var room [1 << radixBits]int
	next := room[:0]
	if len(ends) > len(room) {
		next = make([]int, 0, len(ends))
	}
	next = next[:len(ends)]
	sum := 0
	for d, n := range ends {
		next[d] = sum
		sum += n
		ends[d] = sum
	}
	for d := range ends {
		for next[d] < ends[d] {
			p := ps[next[d]]
			for pd := digit(p); pd != d; pd = digit(p) {
				j := next[pd]
				next[pd]++
				p, ps[j] = ps[j], p
			}
			ps[next[d]] = p
			next[d]++
		}
	}
}
