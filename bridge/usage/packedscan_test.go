package usage

import (
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestScanTakesWhatDecodeTakes: the scan of a compact history, which
// passes over each turn's numbers without making them, accepts no block
// of turns that decoding them rejects (a report decodes each turn from
// where the scan found it, sure its bytes are whole), and finds each turn
// where decoding reads it: every way a turn is written (with and without
// costs and subagents' usage, numbers of one byte to ten), the block
// intact, cut at every byte, and with every byte changed.
func TestScanTakesWhatDecodeTakes(t *testing.T) {
	big := event.Usage{InputTokens: math.MaxInt64, OutputTokens: math.MinInt64, CacheCreationTokens: -1, CacheReadTokens: 1 << 40, Cache1hTokens: 300, ReasoningOutputTokens: 5}
	end := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	var turns []Turn
	for f := range 16 {
		tr := Turn{Start: end.Add(-time.Minute), End: end, Agent: AgentClaude, Workspace: "/w", Session: "s", Model: "m",
			Usage: event.Usage{InputTokens: int64(f), OutputTokens: 200}, CostKnown: f&1 != 0}
		if f&2 != 0 {
			tr.CostUSD = 0.25
		}
		if f&4 != 0 {
			tr.SubUsage = big
		}
		if f&8 != 0 {
			tr.SubCost = 1.5
			tr.Usage = big
		}
		turns = append(turns, tr)
		end = end.Add(time.Second)
	}
	raw := encodeTurns(turns)
	want := make([]Turn, len(turns))
	if err := decodeTurns(raw, want); err != nil {
		t.Fatal(err)
	}
	g := &packedGroup{raw: raw}
	pts := make([]packedTurn, len(turns))
	if err := g.scan(pts, 0); err != nil {
		t.Fatal(err)
	}
	p := &packed{groups: []packedGroup{*g}, zones: map[int64]*time.Location{}}
	for i := range pts {
		var got Turn
		p.turn(&pts[i], &got)
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("turn %d scanned: %+v, decoded %+v", i, got, want[i])
		}
	}
	rejected := 0
	try := func(what string, b []byte) {
		if decodeTurns(b, make([]Turn, len(turns))) == nil {
			return
		}
		rejected++
		if err := (&packedGroup{raw: b}).scan(make([]packedTurn, len(turns)), 0); err == nil {
			t.Errorf("%s: the scan takes a block decoding rejects", what)
		}
	}
	for n := range len(raw) {
		try("cut to "+strconv.Itoa(n), raw[:n])
	}
	for i := range raw {
		for _, v := range []byte{0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x7f, 0x80, 0xff} {
			b := append([]byte(nil), raw...)
			b[i] = v
			try("byte "+strconv.Itoa(i)+" set to "+strconv.Itoa(int(v)), b)
		}
	}
	if rejected < len(raw) {
		t.Errorf("decoding rejected only %d of the damaged blocks: the test proves less than it says", rejected)
	}
}
