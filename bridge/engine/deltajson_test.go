package engine

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// A delta encodes exactly as encoding/json encodes the same fields (the
// journal's older lines were written so, and a restart reads both).
func TestDeltaEncodesAsEncodingJSON(t *testing.T) {
	since := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("x", 3600))
	for _, tt := range []struct {
		name string
		d    delta
	}{
		{"nil", delta{}},
		{"empty", delta{Sessions: map[string]sessionDelta{}}},
		{"one moved", delta{Sessions: map[string]sessionDelta{"a": {Offset: 123}}}},
		{"all fields", delta{Sessions: map[string]sessionDelta{
			"b<&>\u2028": {Offset: 9, Subs: map[string]int64{"agent-2.jsonl": 5, "agent-1.jsonl": 7}, Status: &statusDelta{State: "working", Reason: "", Since: since}, LastID: 42},
			"a":          {Status: &statusDelta{State: "needs_input", Reason: "question \"why\"", Since: time.Time{}}},
			"c":          {LastID: 7, Subs: map[string]int64{}},
		}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.d.MarshalJSON() // as the engine calls it: encoding/json does not compact it again
			if err != nil {
				t.Fatal(err)
			}
			want := encodingJSONOf(t, tt.d)
			if string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			var back delta
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("read back: %v", err)
			}
		})
	}
}

// encodingJSONOf is d as encoding/json writes the same fields, by
// reflection: the reference the hand-written encoder must match.
func encodingJSONOf(t *testing.T, d delta) []byte {
	t.Helper()
	type refSession struct {
		Offset int64            `json:"o,omitempty"`
		Subs   map[string]int64 `json:"sub,omitempty"`
		Status *statusDelta     `json:"st,omitempty"`
		LastID int64            `json:"l,omitempty"`
	}
	var ref struct {
		Sessions map[string]refSession `json:"s"`
	}
	if d.Sessions != nil {
		ref.Sessions = make(map[string]refSession)
		for id, sd := range d.Sessions {
			ref.Sessions[id] = refSession{sd.Offset, sd.Subs, sd.Status, sd.LastID}
		}
	}
	want, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// TestDeltaAppendsAsEncodingJSON: publish appends each line's delta to
// the buffer the line before used. For thousands of random deltas, of
// ids and subagent names full of what JSON escapes, offsets of every
// size and times in any zone, what appendJSON adds to a reused buffer is
// byte for byte encoding/json's, and what the buffer held before stays.
func TestDeltaAppendsAsEncodingJSON(t *testing.T) {
	nasty := []string{"", "a", "0b0e0f10-0000-4000-8000-000000000001", `quote " back \ slash`, "tab\tnl\ncr\r\x00\x1f\x7f",
		"<b>&amp;</b>", "bad \xff\xfe utf8 \xe2\x82", "line\u2028para\u2029", "日本語 😀", "agent-a1.jsonl", strings.Repeat("x", 300)}
	ints := []int64{0, 1, -1, 9, 10, 1 << 20, math.MaxInt64, math.MinInt64}
	zones := []*time.Location{time.UTC, time.FixedZone("x", 3600), time.FixedZone("y", -(9*3600 + 30*60)), time.FixedZone("z", 59)}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	num := func() int64 {
		if rng.IntN(2) == 0 {
			return ints[rng.IntN(len(ints))]
		}
		return rng.Int64N(1<<40) - 1<<39
	}
	random := func() delta {
		if rng.IntN(20) == 0 {
			return delta{}
		}
		d := delta{Sessions: map[string]sessionDelta{}}
		for range rng.IntN(4) {
			var sd sessionDelta
			if rng.IntN(2) == 0 {
				sd.Offset = num()
			}
			if n := rng.IntN(4); n > 0 {
				sd.Subs = map[string]int64{}
				for range n - 1 {
					sd.Subs[pick(nasty)] = num()
				}
			}
			if rng.IntN(2) == 0 {
				var since time.Time // the zero time, now and then
				if rng.IntN(5) > 0 {
					since = time.Unix(rng.Int64N(1<<34), rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))])
				}
				sd.Status = &statusDelta{State: pick(nasty), Reason: pick(nasty), Since: since}
			}
			if rng.IntN(2) == 0 {
				sd.LastID = num()
			}
			d.Sessions[pick(nasty)] = sd
		}
		return d
	}
	buf := []byte("before")
	for i := range 5000 {
		d := random()
		want := encodingJSONOf(t, d)
		n := len(buf)
		got, err := d.appendJSON(buf)
		if err != nil {
			t.Fatalf("delta %d: %v", i, err)
		}
		if string(got[:n]) != string(buf[:n]) {
			t.Fatalf("delta %d: the buffer's first %d bytes changed: %q", i, n, got[:n])
		}
		if string(got[n:]) != string(want) {
			t.Fatalf("delta %d:\ngot  %s\nwant %s", i, got[n:], want)
		}
		if i%7 == 0 {
			got = got[:0] // as publish does: the next line's from the start
		}
		buf = got
	}
}
