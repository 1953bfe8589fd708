package transcript

import (
	"slices"
	"strconv"
	"strings"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// recentMax bounds the responses a parser remembers to count each once.
// Lines of one response are written together; the window also covers a
// subagent's response seen first in a progress record of the main file
// and again in its own file. It keeps the saved state O(1) in turn length.
const recentMax = 64

// unknownMax bounds the unpriced model names a turn remembers.
const unknownMax = 4

// Totals is what a turn (or usage not yet in a turn) spent: tokens and
// dollars including subagents, the subagents' part, and the models that
// could not be priced.
type Totals struct {
	Usage    event.Usage `json:"usage"`
	Cost     float64     `json:"cost,omitempty"`
	SubUsage event.Usage `json:"sub_usage,omitzero"`
	SubCost  float64     `json:"sub_cost,omitempty"`
	Unknown  []string    `json:"unknown,omitempty"`
	// Log is every charge that made Cost, kept only by a parser asked to
	// (RecordCharges): the usage cache reprices turns from it.
	Log []Charge `json:"log,omitempty"`
}

// Charge is one step of a cost (price.Charge).
type Charge = price.Charge

// Reprice works out with tab what charges cost, as the turn they made
// would have been counted with tab: cost, the subagents' part, and the
// models tab has no price for.
func Reprice(charges []Charge, tab *price.Table) (cost, sub float64, unknown []string) {
	for _, c := range charges {
		now, known := tab.Cost(c.Now)
		was := 0.0
		if c.Was != nil {
			was, _ = tab.Cost(*c.Was)
		}
		if !known {
			if m := c.Now.Model; !slices.Contains(unknown, m) && len(unknown) < unknownMax {
				unknown = append(unknown, m)
			}
		}
		cost += now - was
		if c.Side {
			sub += now - was
		}
	}
	return cost, sub, unknown
}

// fullMax is how many of the newest responses keep their usage: a
// response's lines come together, so only they can still raise their
// counts. Older ones keep a short hash of their key, enough to know a
// repeat (a subagent's response seen again in its own file) and skip it,
// so the state journaled with every batch stays small.
const fullMax = 8

// counted is a response already counted: its key and the usage counted,
// or, once it is old, only a hash of the key.
type counted struct {
	Key  string         `json:"k"`
	Req  *price.Request `json:"r,omitempty"`
	Side bool           `json:"s,omitempty"`
}

// shortKey is the hash an old response is remembered by: of its message
// id alone when it has one, so that a line of it written without its
// requestId (Response.Key) is still known.
func shortKey(k string) string {
	var b [shortKeyMax]byte
	return string(appendShortKey(b[:0], k))
}

// shortKeyMax is the longest short key: "#" and 64 bits in base 36.
const shortKeyMax = 1 + 13

// appendShortKey appends k's short key to b: add compares it with every
// remembered response for every line, and builds no string for that.
func appendShortKey(b []byte, k string) []byte {
	if id, _ := splitKey(k); id != "" {
		k = id
	}
	h := uint64(fnvOffset)
	for i := 0; i < len(k); i++ { // FNV-1a, as hash/fnv's New64a
		h ^= uint64(k[i])
		h *= fnvPrime
	}
	return strconv.AppendUint(append(b, '#'), h, 36)
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// splitKey parses a Response.Key: message.id, then "|" and the requestId
// when the line had one.
func splitKey(k string) (id, req string) {
	id, req, _ = strings.Cut(k, "|")
	return id, req
}

// sameKeyed reports whether two keys name one response: equal, or one
// message whose requestId only one of the lines carried (a subagent's line
// relayed in a progress record and written again in its own file need not
// both have it). b comes split into id and req already, and a is not
// split: add asks this of every remembered response for every line.
func sameKeyed(a, b, id, req string) bool {
	if a == b {
		return true
	}
	// a's id equals b's when a is id alone or id, "|" and a requestId.
	if id == "" || !strings.HasPrefix(a, id) {
		return false
	}
	if len(a) == len(id) {
		return true // a has no requestId
	}
	if a[len(id)] != '|' {
		return false
	}
	return len(a) == len(id)+1 || req == ""
}

// add counts what one line adds: the response's usage the first time its
// key is seen, and only what a later line of it raises afterwards.
func (t *Totals) add(recent *[]counted, r Response, tab *price.Table, log bool) {
	prev, merged := price.Request{}, r.Req
	i := -1
	if r.Key != "" {
		var sb [shortKeyMax]byte
		short := appendShortKey(sb[:0], r.Key)
		id, req := splitKey(r.Key)
		i = slices.IndexFunc(*recent, func(c counted) bool { return c.Key == string(short) || sameKeyed(c.Key, r.Key, id, req) })
	}
	if i >= 0 {
		c := (*recent)[i]
		if c.Req == nil {
			return // an old response seen again: counted already
		}
		prev, merged = *c.Req, Merge(*c.Req, r.Req)
		r.Side = c.Side
		if merged != prev {
			// A copy of its own, and only when raised: one taken of
			// merged for every line made both prev and merged escape,
			// two allocations a line of a response seen before.
			m := merged
			(*recent)[i].Req = &m
		}
	} else if r.Key != "" {
		if len(*recent) >= recentMax {
			// Slide the window rather than shift it: append moves it to a
			// new array once the old one is used up, one copy per
			// recentMax responses instead of one per response.
			*recent = (*recent)[1:]
		}
		m := merged
		*recent = append(*recent, counted{Key: r.Key, Req: &m, Side: r.Side})
		if n := len(*recent) - fullMax - 1; n >= 0 && (*recent)[n].Req != nil {
			(*recent)[n] = counted{Key: shortKey((*recent)[n].Key), Side: (*recent)[n].Side}
		}
	}
	du := sub(merged.Usage, prev.Usage)
	if du == (event.Usage{}) && i >= 0 && merged.WebSearches == prev.WebSearches {
		return // a repeated line: nothing new
	}
	now, known := tab.Cost(merged)
	was := 0.0
	if i >= 0 {
		was, _ = tab.Cost(prev)
	}
	if log {
		c := Charge{Now: merged, Side: r.Side}
		if i >= 0 {
			was := prev
			c.Was = &was
		}
		t.Log = append(t.Log, c)
	}
	if !known {
		if m := merged.Model; !slices.Contains(t.Unknown, m) && len(t.Unknown) < unknownMax {
			t.Unknown = append(t.Unknown, m)
		}
	}
	t.Usage = t.Usage.Add(du)
	t.Cost += now - was
	if r.Side {
		t.SubUsage = t.SubUsage.Add(du)
		t.SubCost += now - was
	}
}

// merge adds o to t.
func (t *Totals) merge(o *Totals) {
	if o == nil {
		return
	}
	t.Usage, t.Cost = t.Usage.Add(o.Usage), t.Cost+o.Cost
	t.SubUsage, t.SubCost = t.SubUsage.Add(o.SubUsage), t.SubCost+o.SubCost
	t.Log = append(t.Log, o.Log...)
	for _, m := range o.Unknown {
		if !slices.Contains(t.Unknown, m) && len(t.Unknown) < unknownMax {
			t.Unknown = append(t.Unknown, m)
		}
	}
}
