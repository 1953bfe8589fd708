package usage

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// packed is a history's turns left where Read found them — each group's
// still encoded in its cache block, or as its files were read — with,
// for each turn, only its end, its start and where it is, in the order of
// History.Turns. A report decodes each turn as it sums it, into one Turn:
// the history's turns are never all in memory at once, as one []Turn of
// 232 bytes a turn (11 MB for 49,000 turns, each page of it new memory
// the kernel hands the process and zeroes) (Source.Compact).
type packed struct {
	groups []packedGroup
	turns  []packedTurn // by end, those that end at once in the order they came
	agents []string     // the agents named, sorted
	zones  map[int64]*time.Location
}

// packedGroup is one group's turns: encoded (raw, with its strings) or read.
type packedGroup struct {
	raw  []byte
	strs []string
	read []Turn
}

// packedTurn is where one turn is: its group, and its offset in the
// group's block (or its place in the turns read).
type packedTurn struct {
	end, start int64 // UnixNano
	group, off int32
	agent      int32 // its agent's place in packed.agents
}

// errInexact: a turn's time does not hold in nanoseconds since 1970 (or
// is not known): the history is put in a []Turn, as without Compact.
var errInexact = errors.New("a time beyond nanoseconds")

// pack lays out the groups' turns (in order) as a packed history, each
// group's scanned by one of workers.
func pack(results []cached, order []int, n, workers int) (*packed, error) {
	p := &packed{groups: make([]packedGroup, len(order)), zones: map[int64]*time.Location{}}
	turns := make([]packedTurn, n)
	at := offsets(results, order)
	agents := make([][]string, len(order)) // each group's agents (its refs)
	err := eachGroup(len(order), workers, func(j int) error {
		c := &results[order[j]]
		g := &p.groups[j]
		dst := turns[at[j] : at[j]+len(c.turns)+c.n]
		if c.raw != nil {
			g.raw = c.raw
			err := g.scan(dst, int32(j))
			agents[j] = g.strs
			return err
		}
		g.read = c.turns
		var err error
		agents[j], err = scanRead(c.turns, dst, int32(j))
		return err
	})
	if err != nil {
		return nil, err
	}
	// The agents named (few): each turn's as its place among them.
	for j := range turns {
		a := agents[turns[j].group][turns[j].agent]
		if !slices.Contains(p.agents, a) {
			p.agents = append(p.agents, a)
		}
	}
	slices.Sort(p.agents)
	for j := range turns {
		t := &turns[j]
		a := agents[t.group][t.agent]
		t.agent = int32(slices.Index(p.agents, a))
	}
	places := make([]place, n)
	for i := range turns {
		places[i] = place{at: turns[i].end, i: int32(i)}
	}
	sortByAt(places)
	p.turns = make([]packedTurn, n)
	for i, pl := range places {
		p.turns[i] = turns[pl.i]
	}
	return p, nil
}

// scan notes where each of g's encoded turns is, with its times, in dst
// (as many as the block holds). A ref of a turn's agent is noted as the
// string's place in g.strs.
func (g *packedGroup) scan(dst []packedTurn, group int32) error {
	d := &decoder{b: g.raw}
	if n := d.count(); d.err == nil && n != len(dst) {
		return fmt.Errorf("usage cache: %w", errCorrupt)
	}
	g.strs = make([]string, d.count())
	for i := range g.strs {
		g.strs[i] = d.str()
	}
	d.strs = g.strs
	var zones map[int64]*time.Location
	var prev int64
	for i := range dst {
		pt := &dst[i]
		pt.group, pt.off = group, int32(len(g.raw)-len(d.b))
		var f byte
		if b := d.raw(1); len(b) == 1 {
			f = b[0]
		}
		if f&turnMillis != 0 {
			prev += d.int()
			dur := d.uint()
			if !nanoSafeMilli(prev) || dur > 1<<53 || !nanoSafeMilli(prev-int64(dur)) {
				return errInexact
			}
			pt.end, pt.start = prev*1e6, (prev-int64(dur))*1e6
		} else {
			if zones == nil {
				zones = map[int64]*time.Location{}
			}
			start, end := d.time(zones), d.time(zones)
			var ok1, ok2 bool
			pt.end, ok1 = timeKey(end)
			pt.start, ok2 = timeKey(start)
			if !ok1 || !ok2 {
				return errInexact
			}
		}
		agent := d.uint()
		if agent >= uint64(len(g.strs)) {
			d.fail()
		}
		pt.agent = int32(agent)
		d.skipTurnRest(f)
		if d.err != nil {
			return fmt.Errorf("usage cache: %w", d.err)
		}
	}
	if len(d.b) != 0 {
		return fmt.Errorf("usage cache: %w", errCorrupt)
	}
	if len(g.raw) > 1<<31-1 {
		return errInexact // an offset would not hold in an int32
	}
	return nil
}

// timeKey is t as a number that sorts as times do: its nanoseconds since
// 1970, or for a time not known (zero, the year 1: before any of those)
// the least int64. False: t is neither.
func timeKey(t time.Time) (int64, bool) {
	if t.IsZero() {
		return math.MinInt64, true
	}
	return t.UnixNano(), nanoSafe(t)
}

// nanoSafeMilli reports whether ms milliseconds since 1970 hold in
// nanoseconds (and as a time, nanoSafe).
func nanoSafeMilli(ms int64) bool {
	return ms > math.MinInt64/1_000_000+1 && ms < math.MaxInt64/1_000_000-1
}

// scanRead notes where each turn read is, with its times, in dst; a
// turn's agent is noted as its place in the returned list.
func scanRead(ts []Turn, dst []packedTurn, group int32) ([]string, error) {
	var agents []string
	for i := range ts {
		t := &ts[i]
		end, ok1 := timeKey(t.End)
		start, ok2 := timeKey(t.Start)
		if !ok1 || !ok2 {
			return nil, errInexact
		}
		a := slices.Index(agents, t.Agent)
		if a < 0 {
			a = len(agents)
			agents = append(agents, t.Agent)
		}
		dst[i] = packedTurn{end: end, start: start, group: group, off: int32(i), agent: int32(a)}
	}
	return agents, nil
}

// turn decodes the turn pt names into t.
func (p *packed) turn(pt *packedTurn, t *Turn) {
	g := &p.groups[pt.group]
	if g.raw == nil {
		*t = g.read[pt.off]
		return
	}
	d := decoder{b: g.raw[pt.off:], strs: g.strs}
	f := d.raw(1)[0] // scanned: the bytes are whole
	if f&turnMillis != 0 {
		d.int()
		dur := d.uint()
		t.End = time.Unix(0, pt.end).In(utc)
		t.Start = t.End.Add(-time.Duration(dur) * time.Millisecond)
	} else {
		t.Start, t.End = d.time(p.zones), d.time(p.zones)
	}
	t.Agent = d.ref()
	d.turnRest(t, f)
}

// each calls f with every turn in the order of History.Turns (t is the
// same Turn each time, filled anew).
func (p *packed) each(f func(t *Turn)) {
	var t Turn
	for i := range p.turns {
		p.turn(&p.turns[i], &t)
		f(&t)
	}
}

// byAgentStart is the turns' places, by agent and then by start: the
// order blocks are cut in.
func (p *packed) byAgentStart() []place {
	order := make([]place, len(p.turns))
	for i := range p.turns {
		order[i] = place{at: p.turns[i].start, i: int32(i), tag: p.turns[i].agent}
	}
	sortByTagAt(order, len(p.agents))
	return order
}

// blocks cuts the turns into blocks as Blocks does.
func (p *packed) blocks() []Block {
	order := p.byAgentStart()
	var b blocker
	var t Turn
	for _, pl := range order {
		p.turn(&p.turns[pl.i], &t)
		b.add(&t)
	}
	return b.done()
}
