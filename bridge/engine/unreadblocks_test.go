package engine

import (
	"testing"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
)

// TestUnreadBlocks: a session the bridge lists but does not read says why
// messages cannot reach it, in its driver's words for its record.
func TestUnreadBlocks(t *testing.T) {
	as := agents{claude.Agent{}, codex.Agent{}}
	for _, tt := range []struct{ agent, want string }{
		{"", "this Claude session has no transcript yet (nothing has been sent in it): send its first message in Conductor, then the bridge can deliver"},
		{"claude", "this Claude session has no transcript yet (nothing has been sent in it): send its first message in Conductor, then the bridge can deliver"},
		{"codex", "this Codex session has no rollout yet (nothing has been sent in it): send its first message in Conductor, then the bridge can deliver"},
		{"cursor", "the bridge does not read cursor sessions, so it cannot hand them messages"},
	} {
		if got := as.unreadBlocks(tt.agent); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.agent, got, tt.want)
		}
	}
}
