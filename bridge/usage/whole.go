package usage

import (
	"errors"

	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// readWhole reads a group of a Whole format (a database and its WAL). Its
// files' identities are taken before the read, as listed: a write during
// the read leaves them older than what was read, so the next run reads
// the group again rather than keep turns of a state it never saw. There
// is nowhere to go on from, but for a driver.Rows: its table is read on
// from prev (nil: from nothing), and with keep where it stopped is kept
// (readOut.snap).
func readWhole(f driver.Whole, g group, prices *price.Table, keep bool, prev *earlier, fn func(Turn)) (readOut, error) {
	out := readOut{whole: true}
	if keep {
		for i, path := range g.Files {
			st := g.stats[i]
			sum, err := sample(path, st.size)
			if err != nil {
				out.ids = nil
				keep = false
				break
			}
			out.ids = append(out.ids, fileID{path: path, dev: st.dev, ino: st.ino, size: st.size, mtime: st.mtime, sample: sum})
		}
	}
	var turns []Turn
	var err error
	if rf, ok := f.(driver.Rows); ok && keep {
		var saved []byte
		var was []Turn
		if prev != nil {
			saved, was = prev.snap.Main, make([]Turn, prev.entry.n)
			if err := decodeTurns(prev.entry.turns, was); err != nil {
				return out, errNoResume
			}
		}
		var next []byte
		turns, next, err = rf.ResumeUsage(g.Group, prices, g.others, saved, was)
		if errors.Is(err, driver.ErrNoResume) {
			return out, errNoResume
		}
		out.snap = &resume{Main: next}
	} else {
		turns, err = f.ReadUsage(g.Group, prices, g.others)
	}
	if err != nil {
		return out, err
	}
	for _, t := range turns {
		fn(t)
	}
	out.bytes, out.done = g.size, len(turns)
	return out, nil
}
