package transcript

import (
	"testing"

	"conductorbridge/bridge/event"
)

// Conductor's first prompt is its own instructions: a user event marked
// system, so viewers fold it away; what the person types is not.
func TestConductorInstructionIsASystemPrompt(t *testing.T) {
	var p Parser
	evs, err := p.Line([]byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"<system_instruction>\nYou are working inside Conductor, a Mac app …\n</system_instruction>\n\nfix the login"}}`), nil)
	if err != nil || len(evs) != 1 || evs[0].Type != event.User || !evs[0].System {
		t.Fatalf("conductor instruction: %+v %v", evs, err)
	}
	evs, _ = p.Line([]byte(`{"type":"user","sessionId":"s","message":{"role":"user","content":"please mention <system_instruction> in the docs"}}`), nil)
	if len(evs) != 1 || evs[0].System {
		t.Fatalf("a typed prompt marked system: %+v", evs)
	}
}
