package inject

import (
	"context"
	"encoding/json"
	"testing"
)

// TestStopAnswerFollowsTheAgent: a queued message goes out on the Stop
// hook as additional context only to an agent whose release takes it
// (Claude Code from 2.1.163, by its driver); every other session gets the
// block every release takes.
func TestStopAnswerFollowsTheAgent(t *testing.T) {
	for _, tt := range []struct {
		agent, version string
		context        bool
	}{
		{"claude", "2.1.328", true},
		{"claude", "2.1.163", true},
		{"claude", "2.1.162", false},
		{"claude", "2.0.77", false},
		{"claude", "", false},
		{"", "2.1.328", true}, // the default agent's
		{"codex", "0.169.0", false},
		{"codex", "2.1.328", false}, // Codex numbers its own releases
		{"cursor", "2.1.328", false},
	} {
		h, e := newHooks(t)
		e.agent, e.version = tt.agent, tt.version
		if _, _, err := h.Queue.Enqueue("ws", "hello"); err != nil {
			t.Fatal(err)
		}
		a := h.Handle(context.Background(), HookStop, in)
		var out struct {
			Decision string `json:"decision"`
			Specific *struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(a.Stdout), &out); err != nil {
			t.Fatalf("%s %s: %q: %v", tt.agent, tt.version, a.Stdout, err)
		}
		if got := out.Specific != nil && out.Specific.AdditionalContext != ""; got != tt.context || got == (out.Decision == "block") {
			t.Errorf("%s %s: %s; want additional context %v, else the block", tt.agent, tt.version, a.Stdout, tt.context)
		}
	}
}
