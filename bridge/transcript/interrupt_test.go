package transcript

import (
	"fmt"
	"testing"

	"conductorbridge/bridge/event"
)

// Interrupt ends a turn whose agent is gone: with an interrupted
// turn_complete carrying what it spent, or with none when it spent nothing.
func TestInterruptEndsAGoneAgentsTurn(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		want  string // the turn_complete's input/output tokens, "" for none
	}{
		{"no turn", nil, ""},
		{"a prompt nothing answered", []string{prompt}, ""},
		{"killed mid-tool", []string{prompt, toolCall}, "10/5"},
		{"killed after the tool ran", []string{prompt, toolCall, toolRes}, "10/5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p Parser
			feed(t, &p, tt.lines...)
			evs := p.Interrupt(nil)
			if p.InTurn() {
				t.Error("turn still open")
			}
			got := ""
			for _, e := range evs {
				if e.Type != event.TurnComplete {
					t.Errorf("unexpected %s", e.Type)
					continue
				}
				if !e.Interrupted || !e.CostKnown || e.Usage.CacheReadTokens != 1000 {
					t.Errorf("turn_complete %+v", e)
				}
				got = fmt.Sprintf("%d/%d", e.Usage.InputTokens, e.Usage.OutputTokens)
			}
			if got != tt.want {
				t.Errorf("turn_complete tokens %q, want %q", got, tt.want)
			}
			if p.Waiting() != "" {
				t.Errorf("still waiting: %q", p.Waiting())
			}
		})
	}
}
