package opencode_test

import (
	"testing"

	"conductorbridge/bridge/agent/opencode"
)

// TestPusherRoute: an idle session is run into, a busy one's message
// waits (no refusal: it stays queued), and with no binary nothing can
// take it, with the reason; nor can a session listed under an id that is
// not OpenCode's (a tab's own id), whatever its state.
func TestPusherRoute(t *testing.T) {
	for _, tt := range []struct {
		name    string
		session string
		bin     string
		busy    bool
		push    bool
		refused bool
	}{
		{"idle", "ses_1a2b", "/bin/opencode", false, true, false},
		{"busy", "ses_1a2b", "/bin/opencode", true, false, false},
		{"no binary, idle", "ses_1a2b", "", false, false, true},
		{"no binary, busy", "ses_1a2b", "", true, false, true},
		{"a tab's own id, idle", "s-tab", "/bin/opencode", false, false, true},
		{"a tab's own id, busy", "s-tab", "/bin/opencode", true, false, true},
		{"a bare prefix", "ses_", "/bin/opencode", false, false, true},
		{"no id", "", "/bin/opencode", false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			push, refusal := opencode.Pusher{Bin: tt.bin}.Route(tt.session, "1.18.33", tt.busy)
			if push != tt.push || (refusal != "") != tt.refused {
				t.Errorf("Route = %v, %q", push, refusal)
			}
		})
	}
}
