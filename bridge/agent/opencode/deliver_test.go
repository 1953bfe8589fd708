package opencode_test

import (
	"context"
	"testing"

	"conductorbridge/bridge/agent/opencode"
)

// TestRunSessionRefusesABadID: a session id that is not OpenCode's (a
// flag, a bare prefix) never reaches the command line.
func TestRunSessionRefusesABadID(t *testing.T) {
	for _, id := range []string{"-rf", "--help", "ses_", "s-tab", ""} {
		if _, err := opencode.RunSession(context.Background(), opencode.RunOptions{Bin: "/bin/true", Session: id, Message: "x"}); err == nil {
			t.Errorf("RunSession ran with the session id %q", id)
		}
	}
}
