package usage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// Source is where the history is: each agent's records and the prices.
type Source struct {
	// Formats are the agents' histories, as the app lists them (each a
	// driver.Lines or a driver.Whole; others are skipped).
	Formats []driver.Format
	Prices  *price.Table // nil: the built-in table
	Workers int          // files read at once; 0: GOMAXPROCS
	Cache   *Cache       // nil: every Read parses every file
	// Compact leaves History.Turns nil: the turns stay as the cache (or
	// the read) holds them, and only Summarize reads them, one at a time.
	// For a report of the whole history: the usage command's.
	Compact bool
}

// History is every turn read, oldest first, with what was read.
type History struct {
	Turns  []Turn
	Limits []Limit // the newest plan limits recorded, by agent and window
	Files  int
	Bytes  int64
	Errors []string // files that could not be read (the rest still count)
	// spare is the room Read sorted the turns in: the first Summarize
	// takes it to sort them again.
	spare atomic.Pointer[[]place]
	// packed holds the turns instead of Turns (Source.Compact).
	packed *packed
}

// place is a turn's place in a sort: a time as one number (nanoseconds
// since 1970, which hold the years 1678 to 2262), the turn, and a tag.
type place struct {
	at     int64
	i, tag int32
}

// nanoSafe reports whether t's nanoseconds since 1970 hold in an int64.
func nanoSafe(t time.Time) bool {
	sec := t.Unix()
	return sec > math.MinInt64/1_000_000_000+1 && sec < math.MaxInt64/1_000_000_000-1
}

// group is one unit of work: a session's record files (its own first,
// then those read with it, its subagents'), as its agent's Format lists
// them.
type group struct {
	driver.Group
	format driver.Format
	agent  string   // format's Name
	others []string // the agents the other formats count (driver.Whole's elsewhere)
	size   int64
	mod    time.Time
	stats  []fileStat // each file's, as listed
}

// Read reads the whole history, files in parallel (at most Workers at
// once, each streamed line by line). With a Cache it reads only what
// changed since the cache was made, and gives the same history.
// ReadFresh is Read with no cache: every file read again, the cache
// neither used nor changed (the usage command's --no-cache, asked of a
// running bridge).
func (s Source) ReadFresh(ctx context.Context) (*History, error) {
	s.Cache = nil
	return s.Read(ctx)
}

func (s Source) Read(ctx context.Context) (*History, error) {
	prices := s.Prices
	if prices == nil {
		prices = price.Default()
	}
	s.Cache.begin(priceKey(prices), s.homes())
	groups, err := s.groups()
	if err != nil {
		return nil, err
	}
	// Largest first, so one big session does not finish last alone.
	slices.SortFunc(groups, func(a, b group) int { return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.Files[0], b.Files[0])) })
	workers := cmp.Or(s.Workers, runtime.GOMAXPROCS(0))
	results := make([]cached, len(groups))
	work := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var bufs buffers // this worker's, lent to each file it reads
			for i := range work {
				results[i] = s.readGroup(groups[i], prices, &bufs)
			}
		})
	}
feed:
	for i := range groups {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read usage history: %w", err)
	}
	s.Cache.keep(groups)
	s.Cache.finish()
	// The same history whatever order the workers took: by session file.
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(groups[a].Files[0], groups[b].Files[0]) })
	h := &History{}
	limits := map[string]Limit{}
	n := 0
	for _, i := range order {
		c := results[i]
		n += len(c.turns) + c.n
		for _, l := range c.limits {
			k := l.Agent + "/" + l.Name
			if old, ok := limits[k]; !ok || l.Seen.After(old.Seen) {
				limits[k] = l
			}
		}
		h.Files += len(groups[i].Files)
		h.Bytes += c.bytes
		if c.err != nil {
			h.Errors = append(h.Errors, c.err.Error())
		}
	}
	if s.Compact {
		h.packed, err = pack(results, order, n, workers)
		if err != nil && !errors.Is(err, errInexact) {
			return nil, err
		}
	}
	if h.packed == nil {
		var spare []place
		if h.Turns, spare, err = byEnd(results, order, n, workers); err != nil {
			return nil, err
		}
		h.spare.Store(&spare)
	}
	for _, l := range limits {
		h.Limits = append(h.Limits, l)
	}
	slices.SortFunc(h.Limits, func(a, b Limit) int { return cmp.Compare(a.Agent+a.Name, b.Agent+b.Name) })
	return h, nil
}

// offsets is where each group's turns go in the groups' turns joined in
// order: at[j] for the group order[j].
func offsets(results []cached, order []int) []int {
	at := make([]int, len(order))
	k := 0
	for j, i := range order {
		at[j] = k
		k += len(results[i].turns) + results[i].n
	}
	return at
}

// byEnd joins the groups' turns (in order) sorted by their end, those
// that end at once in the order they came. The turns are large: they are
// put (and the cache's decoded) once, in the order they came; their
// places are sorted, and then each is moved once.
func byEnd(results []cached, order []int, n, workers int) ([]Turn, []place, error) {
	turns := make([]Turn, n)
	at := offsets(results, order)
	err := eachGroup(len(order), workers, func(j int) error {
		c := &results[order[j]]
		dst := turns[at[j]:]
		var err error
		if c.raw != nil {
			if err = decodeTurns(c.raw, dst[:c.n]); err != nil {
				err = fmt.Errorf("usage cache: %w", err)
			}
		}
		copy(dst, c.turns)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	// Each turn's end as one number, and where it came.
	places := make([]place, n)
	exact := true
	for i := range turns {
		exact = exact && nanoSafe(turns[i].End)
		places[i] = place{at: turns[i].End.UnixNano(), i: int32(i)}
	}
	if exact {
		sortByAt(places)
	} else {
		slices.SortFunc(places, func(a, b place) int {
			return cmp.Or(turns[a.i].End.Compare(turns[b.i].End), cmp.Compare(a.i, b.i))
		})
	}
	// Move each turn once: follow each cycle of the permutation.
	for i := range places {
		if places[i].i < 0 || int(places[i].i) == i {
			continue
		}
		tmp := turns[i]
		j := i
		for {
			from := int(places[j].i)
			places[j].i = -1
			if from == i {
				turns[j] = tmp
				break
			}
			turns[j] = turns[from]
			j = from
		}
	}
	return turns, places, nil
}

// cached is what one group gave: its turns read, or n turns still
// encoded (raw, from the cache).
type cached struct {
	turns  []Turn
	raw    []byte
	n      int
	limits []Limit
	bytes  int64
	err    error
}

// readGroup reads one unit of work: from the cache when its files are as
// they were (its turns still encoded: Read decodes them into the
// history), on from the cache's marks when they only grew (a database's
// table, from its last row read), else whole.
func (s Source) readGroup(g group, prices *price.Table, bufs *buffers) cached {
	keep := s.Cache != nil
	e, fresh := s.Cache.get(g)
	ch := compare(g, e)
	if _, rows := g.format.(driver.Rows); rows && ch == changed && sameDatabase(g, e) {
		// A table of rows written once each, in a database written in
		// place: the rows written since are read, as a file's new lines
		// are (a replaced database, or one that shrank, a VACUUM's, is
		// read whole).
		ch = grown
	}
	switch ch {
	case unchanged:
		if !fresh {
			// Of other prices: worked out again from its charges.
			if e = e.repriced(g.format, prices, s.Cache.pricingsOf(e)); e == nil {
				break
			}
			s.Cache.put(g, e)
			s.Cache.repriced.Add(1)
		}
		s.Cache.reused.Add(1)
		return cached{raw: e.turns, n: e.n, limits: e.limits, bytes: e.bytes}
	case grown:
		if !fresh {
			break
		}
		if snap := s.Cache.snapOf(e); snap != nil {
			c, ne, err := readGroupFrom(g, prices, bufs, &earlier{entry: e, snap: snap, cache: s.Cache}, keep, s.Cache.snapShare())
			if !errors.Is(err, errNoResume) {
				s.Cache.resumed.Add(1)
				s.Cache.store(g, ne, err)
				return c
			}
		}
	}
	c, ne, err := readGroupFrom(g, prices, bufs, nil, keep, s.Cache.snapShare())
	if keep {
		s.Cache.reread.Add(1)
	}
	s.Cache.store(g, ne, err)
	return c
}

// earlier is what a read going on from an entry starts from.
type earlier struct {
	entry *entry
	snap  *resume
	cache *Cache
}

// readGroupFrom reads one group from its start (prev nil) or on from
// prev's marks, and with keep makes its new entry (nil when it cannot be
// kept).
func readGroupFrom(g group, prices *price.Table, bufs *buffers, prev *earlier, keep bool, share int64) (cached, *entry, error) {
	var c cached
	collect := func(t Turn) { c.turns = append(c.turns, t) }
	var from *resume
	if prev != nil {
		from = prev.snap
	}
	var out readOut
	switch f := g.format.(type) {
	case driver.Lines:
		out, c.err = readLines(f, g, prices, true, bufs, from, keep, collect, func(ls []Limit) { c.limits = ls })
	case driver.Whole:
		out, c.err = readWhole(f, g, prices, keep, prev, collect)
	}
	c.bytes = out.bytes
	if errors.Is(c.err, errNoResume) {
		return c, nil, c.err
	}
	fresh := len(c.turns) // read now
	_, lines := g.format.(driver.Lines)
	if c.err == nil && prev != nil && lines {
		// The turns complete before are the entry's.
		was := make([]Turn, prev.entry.n)
		if err := decodeTurns(prev.entry.turns, was); err != nil {
			return c, nil, errNoResume
		}
		out.done += prev.entry.done
		c.turns = slices.Concat(was[:prev.entry.done], c.turns)
	}
	if c.err != nil || !keep || !out.whole || out.ids == nil {
		return c, nil, c.err
	}
	e := &entry{agent: g.agent, files: out.ids, bytes: out.bytes, limits: c.limits,
		turns: encodeTurns(c.turns), n: len(c.turns), done: out.done}
	if out.snap != nil && out.snap.size()*share <= e.bytes {
		// Kept only where reading the files again costs more.
		e.snap.raw = encodeSnap(out.snap)
	}
	priced := out.priced
	if out.lost || len(priced) != fresh {
		priced = nil
	}
	if prev != nil && priced != nil && lines {
		if was := prev.cache.pricingsOf(prev.entry); len(was) >= prev.entry.done {
			priced = slices.Concat(was[:prev.entry.done], priced)
		} else {
			priced = nil
		}
	}
	if priced != nil && len(priced) == len(c.turns) {
		// Kept encoded: a charge per response is more than the turns
		// themselves, and only a price change reads them.
		e.priced.raw = encodePricing(priced)
	}
	return c, e, nil
}

// repriced is e with every turn's cost worked out again with prices from
// what made them, priced (nil when that is not known). Where the files
// stopped is let go: the readers' state there holds costs of the old
// prices.
func (e *entry) repriced(f driver.Format, prices *price.Table, priced []pricing) *entry {
	lf, ok := f.(driver.Lines)
	if !ok || priced == nil || len(priced) != e.n {
		return nil
	}
	ts := make([]Turn, e.n)
	if err := decodeTurns(e.turns, ts); err != nil {
		return nil
	}
	for i := range ts {
		lf.Reprice(&ts[i], priced[i], prices)
	}
	// A new entry of e's fields a read may look at (not where its blocks
	// are: the cache writes those under its lock).
	return &entry{agent: e.agent, files: e.files, bytes: e.bytes, turns: encodeTurns(ts), n: e.n, done: e.done,
		limits: e.limits, priced: part{raw: encodePricing(priced)}}
}

// countedBesides names the agents the formats other than the i-th count:
// their names and aliases (not those of a format counting only its
// agent's runs outside Conductor: driver.RunsOnly).
func (s Source) countedBesides(i int) []string {
	var out []string
	for j, f := range s.Formats {
		if j == i {
			continue
		}
		if _, ok := f.(driver.RunsOnly); ok {
			continue // the agent's tabs are still the i-th's to count
		}
		out = append(out, f.Name())
		if a, ok := f.(driver.Aliased); ok {
			out = append(out, a.Aliases()...)
		}
	}
	return out
}

// homes names where every format's records are: a cache of other homes
// is let go.
func (s Source) homes() string {
	var b strings.Builder
	for _, f := range s.Formats {
		b.WriteString(f.Name())
		b.WriteByte(0)
		b.WriteString(f.UsageHome())
		b.WriteByte(0)
	}
	return b.String()
}

// groups lists the work: every format's groups, each file's identity as
// listed.
func (s Source) groups() ([]group, error) {
	var out []group
	for i, f := range s.Formats {
		switch f.(type) {
		case driver.Lines, driver.Whole:
		default:
			continue
		}
		gs, err := f.UsageGroups()
		if err != nil {
			return nil, fmt.Errorf("list %s records: %w", f.Name(), err)
		}
		name, others := f.Name(), s.countedBesides(i)
		for _, dg := range gs {
			if len(dg.Files) == 0 || len(dg.Infos) != len(dg.Files) {
				continue
			}
			g := group{Group: dg, format: f, agent: name, others: others, stats: make([]fileStat, len(dg.Files))}
			for i, info := range dg.Infos {
				g.size += info.Size()
				if info.ModTime().After(g.mod) {
					g.mod = info.ModTime()
				}
				g.stats[i] = statOf(info)
			}
			out = append(out, g)
		}
	}
	return out, nil
}
