package transcript

import (
	"encoding/binary"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/jsonbytes"
	"conductorbridge/bridge/price"
)

// The engine saves a parser's state with every batch it journals, for
// every line a busy agent writes, and encoding/json spent 10 µs a state
// reflecting on it. appendState writes the very same bytes by hand
// (TestStateEncoderIsJSON compares the two with every field set), so
// journals read the same either way; json.Unmarshal still reads them.

// encodeState is json.Marshal(s), by hand where it can be, in a buffer
// of size bytes to start with.
func encodeState(s *State, size int) (json.RawMessage, error) {
	if b, ok := appendState(make([]byte, 0, size), s); ok {
		return b, nil
	}
	return json.Marshal(s) // a time or a number JSON cannot hold: encoding/json says why
}

// appendState appends s as encoding/json writes it; ok is false where
// that would fail (NaN, an infinity, a year past 9999).
func appendState(b []byte, s *State) (_ []byte, ok bool) {
	o := object{b: b}
	o.state(s)
	return o.end()
}

// object writes one JSON object's members; the first failure sticks.
type object struct {
	b      []byte
	n      int // members written
	failed bool
	// raw writes each string, number and time as its bytes, unescaped
	// and unformatted (stateBytes): not JSON, but as telling of the state.
	raw bool
}

// stateBytes appends s walked as appendState walks it, each string, time
// and number as its bytes: what HashState hashes. Every field the state's
// JSON holds is in it, the walk being the encoder's own.
func stateBytes(b []byte, s *State) []byte {
	o := object{b: b, raw: true}
	o.state(s)
	b, _ = o.end()
	return b
}

// state writes s's members, as encoding/json orders them.
func (o *object) state(s *State) {
	o.optStr("session_id", s.SessionID)
	if len(s.Tools) > 0 {
		o.key("tools")
		sortedMap(o, s.Tools, o.str)
	}
	if s.Turn != nil {
		o.key("turn")
		o.turn(s.Turn)
	}
	if len(s.Recent) > 0 {
		o.key("recent")
		o.array(len(s.Recent), func(i int) { o.counted(&s.Recent[i]) })
	}
	if s.Carry != nil {
		o.key("carry")
		o.totals(s.Carry)
	}
	o.optStr("last_text", s.LastText)
	o.optStr("version", s.Version)
	o.optStr("ended", s.Ended)
	o.optTrue("hooked", s.Hooked)
	o.optInt("goes_on", int64(s.GoesOn))
	if !s.EndedAt.IsZero() {
		o.key("ended_at")
		o.time(s.EndedAt)
	}
	o.optInt("warming", int64(s.Warming))
	o.optTrue("warm", s.Warm)
	o.optTrue("later", s.Later)
}

func (o *object) key(k string) {
	if o.n == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...) // keys here are plain ASCII
	o.b = append(o.b, '"', ':')
}

// end closes the object; with no member, "{}".
func (o *object) end() ([]byte, bool) {
	if o.n == 0 {
		o.b = append(o.b, '{')
	}
	return append(o.b, '}'), !o.failed
}

// nested writes an inner object with fill, on o's buffer.
func (o *object) nested(fill func(*object)) {
	in := object{b: o.b}
	fill(&in)
	o.b, _ = in.end()
	o.failed = o.failed || in.failed
}

// array writes a JSON array of n elements, elem writing the i-th.
func (o *object) array(n int, elem func(i int)) {
	o.b = append(o.b, '[')
	for i := range n {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		elem(i)
	}
	o.b = append(o.b, ']')
}

// sortedMap writes m as a JSON object in the order encoding/json writes
// a map's keys, value writing each value.
func sortedMap[V any](o *object, m map[string]V, value func(V)) {
	o.b = append(o.b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		o.str(k)
		o.b = append(o.b, ':')
		value(m[k])
	}
	o.b = append(o.b, '}')
}

// The opt methods write a member only when its value is not the zero
// value, as encoding/json's omitempty does.

func (o *object) optStr(k, s string) {
	if s != "" {
		o.key(k)
		o.str(s)
	}
}

func (o *object) optInt(k string, n int64) {
	if n != 0 {
		o.key(k)
		o.int(n)
	}
}

func (o *object) optFloat(k string, f float64) {
	if f != 0 {
		o.key(k)
		o.float(f)
	}
}

func (o *object) optTrue(k string, v bool) {
	if v {
		o.key(k)
		o.bool(true)
	}
}

func (o *object) str(s string) {
	if o.raw { // its length, then its bytes: no two strings alike
		o.b = binary.LittleEndian.AppendUint64(o.b, uint64(len(s)))
		o.b = append(o.b, s...)
		return
	}
	o.b = jsonbytes.String(o.b, s, true)
}

func (o *object) int(n int64) {
	if o.raw {
		o.b = binary.LittleEndian.AppendUint64(o.b, uint64(n))
		return
	}
	o.b = strconv.AppendInt(o.b, n, 10)
}

func (o *object) bool(v bool) { o.b = strconv.AppendBool(o.b, v) }

func (o *object) time(t time.Time) {
	if o.raw { // the instant and its zone's offset, as its JSON says them
		_, off := t.Zone()
		o.b = binary.LittleEndian.AppendUint64(o.b, uint64(t.UnixNano()))
		o.b = binary.LittleEndian.AppendUint64(o.b, uint64(off))
		return
	}
	var ok bool
	if o.b, ok = jsonbytes.Time(o.b, t); !ok {
		o.failed = true
	}
}

// float writes f as encoding/json does: the shortest decimal that reads
// back as f, in exponent form only below 1e-6 or from 1e21, its
// exponent without a leading zero.
func (o *object) float(f float64) {
	if o.raw {
		o.b = binary.LittleEndian.AppendUint64(o.b, math.Float64bits(f))
		return
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		o.failed = true
		return
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(o.b)
	o.b = strconv.AppendFloat(o.b, f, format, -1, 64)
	if format == 'e' { // 1e-07 → 1e-7
		e := o.b[start:]
		if n := len(e); n >= 4 && e[n-4] == 'e' && e[n-3] == '-' && e[n-2] == '0' {
			e[n-2] = e[n-1]
			o.b = o.b[:len(o.b)-1]
		}
	}
}

func (o *object) turn(t *Turn) {
	o.nested(func(in *object) {
		in.key("start")
		in.time(t.Start)
		in.key("last")
		in.time(t.Last)
		in.optStr("model", t.Model)
		in.key("sum")
		in.totals(&t.Sum)
		if len(t.Usage) > 0 {
			in.key("usage")
			sortedMap(in, t.Usage, in.usage)
		}
		in.optStr("end_msg", t.EndMsg)
		in.optTrue("unsure", t.Unsure)
		in.optTrue("said", t.Said)
		in.optTrue("waits", t.Waits)
	})
}

func (o *object) totals(t *Totals) {
	o.nested(func(in *object) {
		in.key("usage")
		in.usage(t.Usage)
		in.optFloat("cost", t.Cost)
		if t.SubUsage != (event.Usage{}) {
			in.key("sub_usage")
			in.usage(t.SubUsage)
		}
		in.optFloat("sub_cost", t.SubCost)
		if len(t.Unknown) > 0 {
			in.key("unknown")
			in.array(len(t.Unknown), func(i int) { in.str(t.Unknown[i]) })
		}
		if len(t.Log) > 0 {
			in.key("log")
			in.array(len(t.Log), func(i int) { in.charge(&t.Log[i]) })
		}
	})
}

func (o *object) charge(c *Charge) {
	o.nested(func(in *object) {
		in.key("n")
		in.request(&c.Now)
		if c.Was != nil {
			in.key("w")
			in.request(c.Was)
		}
		in.optTrue("s", c.Side)
	})
}

func (o *object) usage(u event.Usage) {
	o.nested(func(in *object) {
		in.key("input_tokens")
		in.int(u.InputTokens)
		in.key("output_tokens")
		in.int(u.OutputTokens)
		in.key("cache_creation_input_tokens")
		in.int(u.CacheCreationTokens)
		in.key("cache_read_input_tokens")
		in.int(u.CacheReadTokens)
		in.optInt("cache_creation_1h_input_tokens", u.Cache1hTokens)
		in.optInt("reasoning_output_tokens", u.ReasoningOutputTokens)
	})
}

func (o *object) counted(c *counted) {
	o.nested(func(in *object) {
		in.key("k")
		in.str(c.Key)
		if c.Req != nil {
			in.key("r")
			in.request(c.Req)
		}
		in.optTrue("s", c.Side)
	})
}

func (o *object) request(r *price.Request) {
	o.nested(func(in *object) {
		in.optStr("m", r.Model)
		in.key("u")
		in.usage(r.Usage)
		in.optInt("ws", r.WebSearches)
		in.optInt("wf", r.WebFetches)
		in.optTrue("f", r.Fast)
	})
}
