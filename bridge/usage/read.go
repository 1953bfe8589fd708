package usage

import (
	"errors"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// readOut is what one read of a group gave besides its turns.
type readOut struct {
	bytes int64
	done  int      // the turns before this many were complete before the files' end
	snap  *resume  // where a later read may go on (nil: from the start only)
	whole bool     // every file listed was read
	ids   []fileID // with keep: what each file was when read
	// priced is what made each turn's cost, in the order the turns came
	// (with keep; nil when a turn's could not be told).
	priced []pricing
	lost   bool // a turn's pricing was not told
}

// pricing is what made one turn's cost, so that another price table
// reprices it without the files.
type pricing = driver.Pricing

// pair records the pricings of the turn_complete events in evs.
func (o *readOut) pair(evs []event.Event, ends []pricing) {
	j := 0
	for _, e := range evs {
		if e.Type != event.TurnComplete {
			continue
		}
		if j >= len(ends) {
			o.lost = true
			return
		}
		o.priced = append(o.priced, ends[j])
		j++
	}
	if j != len(ends) {
		o.lost = true
	}
}

// errNoResume: the files changed in a way a read from the saved state
// cannot follow exactly; they are read from the start.
var errNoResume = errors.New("cannot resume")

// readLines reads a group of a Lines format from its start (from nil) or
// on from where an earlier read stopped (from, the files having only
// grown since), and calls fn with each turn the stream would complete.
// With keep it says where it stopped (readOut.snap). lean is the
// readers' fast path (Options.Lean) and lazy line times: the tests prove
// both ways give the same turns.
//
// Lines of several files are merged by time, so going on is exact only
// when every new line comes after every line already read: the first new
// line of each file must say a time later than any line before it said.
// Otherwise errNoResume.
func readLines(f driver.Lines, g group, prices *price.Table, lean bool, bufs *buffers, from *resume, keep bool, fn func(Turn), limits func([]Limit)) (readOut, error) {
	out := readOut{whole: true}
	var marks map[string]*mark
	var saved *driver.Saved
	if from != nil {
		marks = from.byPath()
		saved = &driver.Saved{State: from.Main, Workspace: from.Cwd, Limits: from.Limits,
			Files: make(map[string][]byte, len(from.Files))}
		for _, m := range from.Files {
			if m.Parser != nil {
				saved.Files[m.Path] = m.Parser
			}
		}
	}
	rd, err := f.OpenUsage(g.Group, saved, driver.Options{Prices: prices, Lean: lean, Keep: keep})
	if err != nil {
		if from != nil {
			return out, errNoResume
		}
		return out, err
	}
	multi := len(g.Files) > 1
	// A resumed read reads every line's time: the next read needs the
	// latest. A read from the start reads a line's time only while it
	// decides the order; the file left last is taken without them, and
	// its mark says how much of it was (mark.Untimed): a read going on
	// from there reads those times then, far faster than it reads the
	// lines, and most groups are never read on.
	m := merged{eager: !lean || from != nil}
	var readers []*lineReader
	var srcs []*source
	var offs []int64
	var paths []string
	var olds []*mark
	var files []int      // each source's place in g.Files
	var before time.Time // the latest time a line read before said
	defer func() {
		for _, r := range readers {
			r.Close()
		}
	}()
	for i, path := range g.Files {
		var mk *mark
		if from != nil {
			if mk = marks[path]; mk == nil && i == 0 {
				return out, errNoResume
			}
			if mk != nil && mk.Untimed > 0 {
				c := *mk
				if multi {
					if c, err = timed(path, c); err != nil {
						return out, errNoResume
					}
				} else {
					// One file: no order to keep, its times are not needed
					// (and stay unknown, as a lazy read left them).
					c.Last, c.LastKnown, c.Max, c.MaxKnown, c.Untimed = time.Time{}, false, time.Time{}, false, 0
				}
				mk = &c
			}
			if mk != nil {
				if !mk.MaxKnown && multi {
					return out, errNoResume
				}
				if mk.Max.After(before) {
					before = mk.Max
				}
			}
		}
		r, err := bufs.open(path)
		if err != nil {
			if i == 0 {
				return out, err
			}
			out.whole = false
			continue // a file gone since it was listed
		}
		readers = append(readers, r)
		var s *source
		off := int64(0)
		if mk != nil {
			off = mk.Off
			if err := r.seek(off); err != nil {
				return out, err
			}
			s, err = m.addFrom(r, mk.Last, mk.Max, mk.LastKnown)
		} else {
			s, err = m.addFrom(r, time.Time{}, time.Time{}, true)
		}
		if err != nil {
			return out, err
		}
		srcs, offs, paths, olds = append(srcs, s), append(offs, off), append(paths, path), append(olds, mk)
		files = append(files, i)
	}
	if from != nil && multi {
		for _, s := range srcs {
			if s.done {
				continue
			}
			if ts, ok := s.ownTime(); !ok || !ts.After(before) {
				return out, errNoResume
			}
		}
	}
	var (
		evs []event.Event
		n   int
	)
	name := f.Name()
	emit := func() {
		for _, e := range evs {
			if e.Type == event.TurnComplete {
				ws, sid := rd.Where()
				fn(driver.TurnOf(e, name, ws, sid))
				n++
			}
		}
		if keep {
			out.pair(evs, rd.Charges())
		}
		evs = evs[:0]
	}
	for {
		ok, err := m.next(func(line []byte, idx int) {
			if evs = rd.Line(files[idx], line, evs); len(evs) > 0 {
				emit()
			}
		})
		if err != nil {
			out.bytes = bytesOf(readers) + sum(offs)
			return out, err
		}
		if !ok {
			break
		}
	}
	out.bytes = bytesOf(readers) + sum(offs)
	out.done = n
	if keep && out.whole {
		out.snap = resumeOf(rd, srcs, readers, olds, paths, files)
		for i, r := range readers {
			id, err := identify(r.f, paths[i], offs[i]+r.bytes)
			if err != nil {
				out.ids = nil
				break
			}
			out.ids = append(out.ids, id)
		}
	}
	evs = rd.End(evs)
	emit()
	if e, p, ok := rd.Leftover(); ok {
		if from != nil {
			for _, s := range srcs {
				if !s.known {
					return out, errNoResume // the time of the last line is not known
				}
			}
		}
		last, err := m.latest()
		if err != nil {
			return out, err
		}
		if last.IsZero() {
			last = g.mod
		}
		e.TS, e.DurationMS = last, 0
		ws, sid := rd.Where()
		fn(driver.TurnOf(e, name, ws, sid))
		if keep {
			p.Leftover = true
			out.priced = append(out.priced, p)
		}
	}
	if ls := rd.Limits(); len(ls) > 0 {
		limits(ls)
	}
	return out, nil
}

// resumeOf saves where a read stopped: the reader's state, and each
// file's offset, own state and times (of the lines before Untimed, for
// the file whose last lines were taken without them). Nothing is saved
// when a file ends mid-line (the rest of that line may come), or when the
// reader's state cannot be saved.
func resumeOf(rd driver.Reader, srcs []*source, readers []*lineReader,
	olds []*mark, paths []string, files []int) *resume {
	st, own, err := rd.Save()
	if err != nil {
		return nil
	}
	ws, _ := rd.Where()
	res := &resume{Main: st, Cwd: ws, Limits: rd.Limits()}
	for i, s := range srcs {
		r, old := readers[i], olds[i]
		mk := mark{Path: paths[i], Off: r.bytes}
		if old != nil {
			mk.Off += old.Off
		}
		if mk.Off > 0 && !r.nl {
			return nil
		}
		if files[i] < len(own) {
			mk.Parser = own[files[i]]
		}
		// Every line not taken lazily was read with its time (a line is
		// taken without it only when its file is the last left).
		mk.Last, mk.LastKnown = s.ts, s.known
		mk.Max, mk.MaxKnown = s.max, old == nil || old.MaxKnown
		if s.lazy {
			mk.Untimed = r.bytes - s.lazyAt
		}
		res.Files = append(res.Files, mk)
	}
	return res
}

func sum(ns []int64) int64 {
	var t int64
	for _, n := range ns {
		t += n
	}
	return t
}

func bytesOf(rs []*lineReader) int64 {
	var n int64
	for _, r := range rs {
		n += r.bytes
	}
	return n
}
