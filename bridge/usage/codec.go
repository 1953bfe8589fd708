package usage

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

type encoder struct {
	b    []byte
	strs map[string]uint64
	list []string
}

func (e *encoder) uint(n uint64)  { e.b = binary.AppendUvarint(e.b, n) }
func (e *encoder) int(n int64)    { e.b = binary.AppendVarint(e.b, n) }
func (e *encoder) bytes(b []byte) { e.uint(uint64(len(b))); e.b = append(e.b, b...) }
func (e *encoder) str(s string)   { e.uint(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) float(f float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(f))
}

func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

// ref writes a repeated string as its place in the string table.
func (e *encoder) ref(s string) {
	i, ok := e.strs[s]
	if !ok {
		i = uint64(len(e.list))
		e.strs[s] = i
		e.list = append(e.list, s)
	}
	e.uint(i)
}

// time keeps the instant and the zone's offset: what a report prints.
func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.uint(0)
		return
	}
	_, off := t.Zone()
	e.uint(1)
	e.int(t.Unix())
	e.uint(uint64(t.Nanosecond()))
	e.int(int64(off))
}

// Turn flags: which of a turn's parts are written, and how its times are.
const (
	turnCostKnown = 1 << iota
	turnCost
	turnSubUsage
	turnSubCost
	turnMillis // times in UTC to the millisecond: End from the last turn's, Start before End
)

// millis reports whether t is a UTC time to the millisecond.
func millis(t time.Time) bool {
	_, off := t.Zone()
	return !t.IsZero() && off == 0 && t.Nanosecond()%1e6 == 0
}

// encodeTurns writes turns as a block of their own, with its own table
// of the strings they repeat (agents, workspaces, sessions, models): a
// cache file copies it as it is, and a warm read decodes it straight into
// the history.
func encodeTurns(ts []Turn) []byte {
	body := &encoder{strs: map[string]uint64{}, b: make([]byte, 0, 40*len(ts))}
	body.turns(ts)
	out := &encoder{b: make([]byte, 0, len(body.b)+16+16*len(body.list))}
	out.uint(uint64(len(ts)))
	out.uint(uint64(len(body.list)))
	for _, s := range body.list {
		out.str(s)
	}
	return append(out.b, body.b...)
}

// turnCount is how many turns a block of encodeTurns holds.
func turnCount(raw []byte) (int, error) {
	n, k := binary.Uvarint(raw)
	if k <= 0 || n > uint64(len(raw)) {
		return 0, errCorrupt
	}
	return int(n), nil
}

// decodeTurns decodes a block of encodeTurns into dst, which holds as
// many turns as the block.
func decodeTurns(raw []byte, dst []Turn) error {
	d := &decoder{b: raw}
	if n := d.count(); d.err == nil && n != len(dst) {
		return errCorrupt
	}
	d.strs = make([]string, d.count())
	for i := range d.strs {
		d.strs[i] = d.str()
	}
	d.turns(dst)
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return d.err
}

func (e *encoder) turns(ts []Turn) {
	var prev int64 // the last End written, in ms
	for i := range ts {
		t := &ts[i]
		var f byte
		if t.CostKnown {
			f |= turnCostKnown
		}
		if t.CostUSD != 0 || math.Signbit(t.CostUSD) {
			f |= turnCost
		}
		if t.SubUsage != (eventUsage{}) {
			f |= turnSubUsage
		}
		if t.SubCost != 0 || math.Signbit(t.SubCost) {
			f |= turnSubCost
		}
		if millis(t.Start) && millis(t.End) && !t.End.Before(t.Start) {
			f |= turnMillis
		}
		e.b = append(e.b, f)
		if f&turnMillis != 0 {
			end := t.End.UnixMilli()
			e.int(end - prev)
			e.uint(uint64(end - t.Start.UnixMilli()))
			prev = end
		} else {
			e.time(t.Start)
			e.time(t.End)
		}
		e.ref(t.Agent)
		e.ref(t.Workspace)
		e.ref(t.Session)
		e.ref(t.Model)
		e.usage(t.Usage)
		if f&turnCost != 0 {
			e.float(t.CostUSD)
		}
		if f&turnSubUsage != 0 {
			e.usage(t.SubUsage)
		}
		if f&turnSubCost != 0 {
			e.float(t.SubCost)
		}
	}
}

// Request flags: which of a request's parts are written.
const (
	reqWebSearches = 1 << iota
	reqWebFetches
	reqFast
	chargeWas  // a charge: the request as counted before follows
	chargeSide // a charge: a subagent's
)

// encodePricing writes what made each turn's cost as a block of its own
// (with its own table of model names): a run that does not reprice copies
// it as it is, never decoding it.
func encodePricing(ps []pricing) []byte {
	body := &encoder{strs: map[string]uint64{}}
	for _, p := range ps {
		body.pricing(p)
	}
	out := &encoder{}
	out.uint(uint64(len(ps)))
	out.uint(uint64(len(body.list)))
	for _, s := range body.list {
		out.str(s)
	}
	return append(out.b, body.b...)
}

func decodePricing(raw []byte) ([]pricing, error) {
	d := &decoder{b: raw}
	ps := make([]pricing, d.count())
	d.strs = make([]string, d.count())
	for i := range d.strs {
		d.strs[i] = d.str()
	}
	for i := range ps {
		ps[i] = d.pricing()
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return ps, d.err
}

func (e *encoder) pricing(p pricing) {
	e.ref(p.Model)
	e.bool(p.Leftover)
	e.uint(uint64(len(p.Charges)))
	for i := range p.Charges {
		c := &p.Charges[i]
		var f byte
		if c.Was != nil {
			f |= chargeWas
		}
		if c.Side {
			f |= chargeSide
		}
		e.request(&c.Now, f)
		if c.Was != nil {
			e.request(c.Was, 0)
		}
	}
}

func (e *encoder) request(r *price.Request, f byte) {
	if r.WebSearches != 0 {
		f |= reqWebSearches
	}
	if r.WebFetches != 0 {
		f |= reqWebFetches
	}
	if r.Fast {
		f |= reqFast
	}
	e.b = append(e.b, f)
	e.ref(r.Model)
	e.usage(r.Usage)
	if f&reqWebSearches != 0 {
		e.int(r.WebSearches)
	}
	if f&reqWebFetches != 0 {
		e.int(r.WebFetches)
	}
}

func (e *encoder) usage(u eventUsage) {
	e.int(u.InputTokens)
	e.int(u.OutputTokens)
	e.int(u.CacheCreationTokens)
	e.int(u.CacheReadTokens)
	e.int(u.Cache1hTokens)
	e.int(u.ReasoningOutputTokens)
}

func (e *encoder) limits(ls []Limit) {
	e.uint(uint64(len(ls)))
	for _, l := range ls {
		e.str(l.Agent)
		e.str(l.Name)
		e.float(l.UsedPercent)
		e.int(l.WindowMinutes)
		e.time(l.ResetsAt)
		e.str(l.Plan)
		e.time(l.Seen)
		e.str(l.Workspace)
	}
}

// decoder reads what encoder wrote; the first error sticks.
type decoder struct {
	b    []byte
	err  error
	strs []string
}

var errCorrupt = errors.New("damaged")

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
}

func (d *decoder) uint() uint64 {
	if len(d.b) > 0 && d.b[0] < 0x80 { // one byte: most numbers of a turn
		n := d.b[0]
		d.b = d.b[1:]
		return uint64(n)
	}
	n, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.fail()
		d.b = nil
		return 0
	}
	d.b = d.b[k:]
	return n
}

// int reads what encoder.int wrote: a uvarint holding the number
// zigzagged, as binary.Varint reads it.
func (d *decoder) int() int64 {
	u := d.uint()
	return int64(u>>1) ^ -int64(u&1) // as binary.Varint undoes the zigzag
}

// count reads a length, no more than the bytes left could hold.
func (d *decoder) count() int {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail()
		d.b = nil
		return 0
	}
	return int(n)
}

func (d *decoder) raw(n int) []byte {
	if n > len(d.b) {
		d.fail()
		d.b = nil
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}

func (d *decoder) bytes() []byte { return d.raw(d.count()) }
func (d *decoder) str() string   { return string(d.bytes()) }
func (d *decoder) bool() bool    { b := d.raw(1); return len(b) == 1 && b[0] == 1 }
func (d *decoder) float() float64 {
	b := d.raw(8)
	if len(b) < 8 {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

func (d *decoder) uint64() uint64 {
	b := d.raw(8)
	if len(b) < 8 {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) ref() string {
	i := d.uint()
	if i >= uint64(len(d.strs)) {
		d.fail()
		return ""
	}
	return d.strs[i]
}

// zones are the fixed zones decoded, one per offset.
var utc = time.UTC

type eventUsage = event.Usage

func (d *decoder) time(zones map[int64]*time.Location) time.Time {
	if d.uint() == 0 {
		return time.Time{}
	}
	sec, ns, off := d.int(), d.uint(), d.int()
	if ns >= 1e9 {
		d.fail()
		return time.Time{}
	}
	t := time.Unix(sec, int64(ns))
	if off == 0 {
		return t.In(utc)
	}
	loc := zones[off]
	if loc == nil {
		loc = time.FixedZone("", int(off))
		zones[off] = loc
	}
	return t.In(loc)
}

func (d *decoder) turns(ts []Turn) {
	var zones map[int64]*time.Location
	var prev int64
	for i := range ts {
		t := &ts[i]
		var f byte
		if b := d.raw(1); len(b) == 1 {
			f = b[0]
		}
		if f&turnMillis != 0 {
			prev += d.int()
			t.End = time.UnixMilli(prev).In(utc)
			t.Start = t.End.Add(-time.Duration(d.uint()) * time.Millisecond)
		} else {
			if zones == nil {
				zones = map[int64]*time.Location{}
			}
			t.Start, t.End = d.time(zones), d.time(zones)
		}
		t.Agent = d.ref()
		d.turnRest(t, f)
		if d.err != nil {
			return
		}
	}
}

// turnRest decodes the rest of a turn of flags f, after its agent.
func (d *decoder) turnRest(t *Turn, f byte) {
	t.Workspace, t.Session, t.Model = d.ref(), d.ref(), d.ref()
	t.Usage = d.usage()
	t.CostKnown = f&turnCostKnown != 0
	t.CostUSD, t.SubUsage, t.SubCost = 0, eventUsage{}, 0
	if f&turnCost != 0 {
		t.CostUSD = d.float()
	}
	if f&turnSubUsage != 0 {
		t.SubUsage = d.usage()
	}
	if f&turnSubCost != 0 {
		t.SubCost = d.float()
	}
}

func (d *decoder) pricing() pricing {
	p := pricing{Model: d.ref(), Leftover: d.bool()}
	if n := d.count(); n > 0 {
		p.Charges = make([]price.Charge, n)
		for i := range p.Charges {
			c := &p.Charges[i]
			var f byte
			c.Now, f = d.request()
			c.Side = f&chargeSide != 0
			if f&chargeWas != 0 {
				was, _ := d.request()
				c.Was = &was
			}
		}
	}
	return p
}

func (d *decoder) request() (price.Request, byte) {
	var f byte
	if b := d.raw(1); len(b) == 1 {
		f = b[0]
	}
	r := price.Request{Model: d.ref(), Usage: d.usage(), Fast: f&reqFast != 0}
	if f&reqWebSearches != 0 {
		r.WebSearches = d.int()
	}
	if f&reqWebFetches != 0 {
		r.WebFetches = d.int()
	}
	return r, f
}

// skipTurnRest passes over what turnRest decodes, failing where it would:
// a scan that needs only where each turn is makes none of its values.
func (d *decoder) skipTurnRest(f byte) {
	for range 3 { // workspace, session, model
		if d.uint() >= uint64(len(d.strs)) {
			d.fail()
		}
	}
	d.skip(usageFields)
	if f&turnCost != 0 {
		d.raw(8)
	}
	if f&turnSubUsage != 0 {
		d.skip(usageFields)
	}
	if f&turnSubCost != 0 {
		d.raw(8)
	}
}

// usageFields is how many numbers usage reads.
const usageFields = 6

// skip passes over n numbers as uint or int would read them, failing on
// one they would fail on (cut short, or more than 64 bits).
func (d *decoder) skip(n int) {
	b := d.b
	for range n {
		i := 0
		for i < len(b) && b[i] >= 0x80 {
			i++
		}
		if i >= len(b) || i >= binary.MaxVarintLen64 || (i == binary.MaxVarintLen64-1 && b[i] > 1) {
			d.fail()
			d.b = nil
			return
		}
		b = b[i+1:]
	}
	d.b = b
}

func (d *decoder) usage() eventUsage {
	return eventUsage{InputTokens: d.int(), OutputTokens: d.int(), CacheCreationTokens: d.int(),
		CacheReadTokens: d.int(), Cache1hTokens: d.int(), ReasoningOutputTokens: d.int()}
}

func (d *decoder) limits(zones map[int64]*time.Location) []Limit {
	n := d.count()
	if n == 0 {
		return nil
	}
	ls := make([]Limit, n)
	for i := range ls {
		l := &ls[i]
		l.Agent, l.Name, l.UsedPercent, l.WindowMinutes = d.str(), d.str(), d.float(), d.int()
		l.ResetsAt, l.Plan, l.Seen, l.Workspace = d.time(zones), d.str(), d.time(zones), d.str()
	}
	return ls
}

// encodeSnap writes where a read stopped as a block of its own: only a
// read that goes on from it decodes it.
func encodeSnap(r *resume) []byte {
	e := &encoder{}
	e.bytes(r.Main)
	e.str(r.Cwd)
	e.uint(uint64(len(r.Files)))
	for _, m := range r.Files {
		e.str(m.Path)
		e.int(m.Off)
		e.bytes(m.Parser)
		e.time(m.Last)
		e.time(m.Max)
		e.bool(m.LastKnown)
		e.bool(m.MaxKnown)
		e.int(m.Untimed)
	}
	e.limits(r.Limits)
	return e.b
}

func decodeSnap(raw []byte) (*resume, error) {
	d := &decoder{b: raw}
	zones := map[int64]*time.Location{}
	r := &resume{Main: d.bytes(), Cwd: d.str()}
	r.Files = make([]mark, d.count())
	for i := range r.Files {
		m := &r.Files[i]
		m.Path, m.Off, m.Parser = d.str(), d.int(), d.bytes()
		m.Last, m.Max = d.time(zones), d.time(zones)
		m.LastKnown, m.MaxKnown = d.bool(), d.bool()
		m.Untimed = d.int()
	}
	r.Limits = d.limits(zones)
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return r, d.err
}
