package opencode_test

import (
	"testing"

	"conductorbridge/bridge/agent/opencode"
)

// TestPusherRoute: an idle session is run into, a busy one's message
// waits (no refusal: it stays queued), and with no binary nothing can
// take it, with the reason.
func TestPusherRoute(t *testing.T) {
	for _, tt := range []struct {
		name    string
		bin     string
		busy    bool
		push    bool
		refused bool
	}{
		{"idle", "/bin/opencode", false, true, false},
		{"busy", "/bin/opencode", true, false, false},
		{"no binary, idle", "", false, false, true},
		{"no binary, busy", "", true, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			push, refusal := opencode.Pusher{Bin: tt.bin}.Route("1.18.33", tt.busy)
			if push != tt.push || (refusal != "") != tt.refused {
				t.Errorf("Route = %v, %q", push, refusal)
			}
		})
	}
}
