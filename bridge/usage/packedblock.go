package usage

import (
	"math"
	"time"
)

// blocksAt is what current(p.blocks(), now) is, for a report that shows
// only the blocks open at now: where each block starts follows from the
// turns' starts alone, which p holds, so only the turns of a block open
// at now are decoded and summed (none mostly, at most one an agent).
// False: a block's end would not hold in nanoseconds since 1970;
// the caller cuts every block.
func (p *packed) blocksAt(now time.Time) ([]Block, bool) {
	if !p.startsNear(now) {
		return []Block{}, true
	}
	order := p.byAgentStart()
	var b blocker
	var t Turn
	tag := int32(-1)
	var end int64 // the block's end, as a turn's start
	open := false // the block is open at now
	for _, pl := range order {
		pt := &p.turns[pl.i]
		if pt.start == math.MinInt64 {
			continue // no start: in no block (blocker.add)
		}
		if pl.tag != tag || pt.start >= end {
			// A new block, as blocker.add starts one.
			start := time.Unix(0, pt.start).UTC().Truncate(time.Hour)
			stop := start.Add(BlockLength)
			if !nanoSafe(stop) {
				return nil, false
			}
			tag, end = pl.tag, stop.UnixNano()
			open = !now.Before(start) && now.Before(stop)
		}
		if open {
			p.turn(pt, &t)
			b.add(&t)
		}
	}
	return current(b.done(), now), true
}

// startsNear reports whether some turn starts after now-BlockLength and
// before an hour after now: a block open at now starts at the hour of its
// first turn, no later than now and less than BlockLength before it, so
// without such a turn none is open. True when now is too far from 1970 to
// tell.
func (p *packed) startsNear(now time.Time) bool {
	from, to := now.Add(-BlockLength), now.Add(time.Hour)
	if !nanoSafe(from) || !nanoSafe(to) {
		return true
	}
	lo, hi := from.UnixNano(), to.UnixNano()
	for i := range p.turns {
		if s := p.turns[i].start; s > lo && s < hi {
			return true
		}
	}
	return false
}
