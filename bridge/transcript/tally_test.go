package transcript

import (
	"fmt"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// A response seen again long after it was counted (a subagent's response,
// first in a progress record, then in its own file read later) counts
// once, even after it has aged to a bare key hash; one seen again while
// new still raises its counts to the larger value.
func TestCountedOnceAcrossTheWindow(t *testing.T) {
	tab := price.Embedded()
	var tot Totals
	var recent []counted
	req := func(out int64) price.Request {
		return price.Request{Model: "claude-opus-5-5", Usage: event.Usage{InputTokens: 10, OutputTokens: out}}
	}
	tot.add(&recent, Response{Key: "first", Req: req(1)}, tab)
	tot.add(&recent, Response{Key: "first", Req: req(5)}, tab) // its final line: output 5
	for i := range 3 * fullMax {
		tot.add(&recent, Response{Key: fmt.Sprintf("other-%d", i), Req: req(5)}, tab)
	}
	tot.add(&recent, Response{Key: "first", Req: req(5)}, tab) // seen again, long after
	n := int64(1 + 3*fullMax)
	if want := (event.Usage{InputTokens: 10 * n, OutputTokens: 5 * n}); tot.Usage != want {
		t.Errorf("usage %+v, want %+v", tot.Usage, want)
	}
	// 25 responses × (10 in × $4 + 5 out × $20) / 1e6 = 25 × 0.00014
	if want := float64(n) * 0.00014; tot.Cost < want-1e-12 || tot.Cost > want+1e-12 {
		t.Errorf("cost %v, want %v", tot.Cost, want)
	}
	full := 0
	for _, c := range recent {
		if c.Req != nil {
			full++
		}
	}
	if full != fullMax {
		t.Errorf("%d responses keep their usage, want the newest %d", full, fullMax)
	}
}
