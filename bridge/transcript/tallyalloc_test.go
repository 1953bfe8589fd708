package transcript

import (
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Counting a response's line allocates only what it keeps: a line of a
// response seen before its raised usage, in the window of recent
// responses, and a line repeated word for word nothing. What it counts
// is TestCountedOnceAcrossTheWindow's.
func TestCountingALineAllocatesWhatItKeeps(t *testing.T) {
	tab := price.Embedded()
	req := func(out int64) price.Request {
		return price.Request{Model: "claude-opus-5-5", Usage: event.Usage{InputTokens: 10, OutputTokens: out}}
	}
	for _, tt := range []struct {
		name string
		log  bool
		next Response
		want float64
	}{
		{"a line raising a response's usage", false, Response{Key: "a", Req: req(5)}, 1},
		{"a line repeated", false, Response{Key: "a", Req: req(1)}, 0},
		{"a line raising it, logged", true, Response{Key: "a", Req: req(5)}, 2}, // and the usage before, in the log
	} {
		first := counted{Key: "a", Req: &price.Request{Model: "claude-opus-5-5", Usage: event.Usage{InputTokens: 10, OutputTokens: 1}}}
		var tot Totals
		logs := make([]Charge, 0, 1)
		recent := make([]counted, 1, 2)
		n := testing.AllocsPerRun(100, func() {
			tot, recent[0] = Totals{Log: logs}, first // add keeps *first as it was
			recent = recent[:1]
			tot.add(&recent, tt.next, tab, tt.log)
		})
		if n != tt.want {
			t.Errorf("%s: %v allocations, want %v", tt.name, n, tt.want)
		}
	}
}
