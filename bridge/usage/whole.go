package usage

import (
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// readWhole reads a group of a Whole format (a database and its WAL). Its
// files' identities are taken before the read, as listed: a write during
// the read leaves them older than what was read, so the next run reads
// the group again rather than keep turns of a state it never saw. There
// is nowhere to go on from: a group that changed is read whole.
func readWhole(f driver.Whole, g group, prices *price.Table, keep bool, fn func(Turn)) (readOut, error) {
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
	turns, err := f.ReadUsage(g.Group, prices, g.others)
	if err != nil {
		return out, err
	}
	for _, t := range turns {
		fn(t)
	}
	out.bytes, out.done = g.size, len(turns)
	return out, nil
}
