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
	tot.add(&recent, Response{Key: "first", Req: req(1)}, tab, false)
	tot.add(&recent, Response{Key: "first", Req: req(5)}, tab, false) // its final line: output 5
	for i := range 3 * fullMax {
		tot.add(&recent, Response{Key: fmt.Sprintf("other-%d", i), Req: req(5)}, tab, false)
	}
	tot.add(&recent, Response{Key: "first", Req: req(5)}, tab, false) // seen again, long after
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

// One response written once with its requestId and once without (a
// subagent's line relayed in a progress record, then in its own file)
// counts once, while it is new and after it has aged to a hash; two
// responses that only share an empty message id do not.
func TestCountedOnceWithoutRequestID(t *testing.T) {
	tab := price.Embedded()
	req := price.Request{Model: "claude-opus-5-5", Usage: event.Usage{InputTokens: 10, OutputTokens: 5}}
	for _, tt := range []struct {
		name       string
		keys       []string
		aged       bool
		wantCounts int64
	}{
		{"file line then progress", []string{"msg_1|req_1", "msg_1"}, false, 1},
		{"progress then file line", []string{"msg_1", "msg_1|req_1"}, false, 1},
		{"aged", []string{"msg_1|req_1", "msg_1"}, true, 1},
		{"two requests, no message id", []string{"|req_1", "|req_2"}, false, 2},
		{"two messages", []string{"msg_1", "msg_2|req_2"}, false, 2},
	} {
		var tot Totals
		var recent []counted
		tot.add(&recent, Response{Key: tt.keys[0], Req: req}, tab, false)
		extra := int64(0)
		if tt.aged {
			for i := range 2 * fullMax {
				tot.add(&recent, Response{Key: fmt.Sprintf("other-%d", i), Req: req}, tab, false)
			}
			extra = 2 * fullMax
		}
		tot.add(&recent, Response{Key: tt.keys[1], Req: req}, tab, false)
		if want := 10 * (tt.wantCounts + extra); tot.Usage.InputTokens != want {
			t.Errorf("%s: %d input tokens, want %d", tt.name, tot.Usage.InputTokens, want)
		}
	}
}
