package inject

import (
	"encoding/json"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
)

// What each agent release prints for a hook's answer decides what the
// person sees of a message in Conductor's chat (the agent's stream-json)
// and in the agent's own terminal. The answers below are the ones that
// read best on the releases recorded in app/words_e2e_test.go; README's
// injection section has the table.

// HookAgent is an agent whose sessions call the bridge's hooks: its
// driver (app lists them). What decides a hook's answer is an optional
// interface below, found by type assertion.
type HookAgent interface {
	Name() string
}

// StopContext is a HookAgent whose Stop hook can go on with the turn by
// hookSpecificOutput.additionalContext, without it counting as a hook
// error, from some release on (Claude Code 2.1.163). Any other session
// gets the block, which every release of every agent takes (Codex 0.169
// records it as a hook prompt; older Claude Code shows it as a hook
// error).
type StopContext interface {
	StopContext(version string) bool
}

// systemMessageSince is the first release whose systemMessage the
// bridge's answers carry: 2.1 shows it in its terminal and prints it in
// stream-json as a notice ({"type":"system","subtype":"informational"}),
// the only place the person's words appear there for hook context.
var systemMessageSince = [3]int{2, 1, 0}

// panelLabel starts the notice that shows the person's words.
const panelLabel = "From the side panel: "

// stopAnswer is the Stop hook's answer handing message m to a session of
// agent a (nil: unknown) at version.
func stopAnswer(m Message, a HookAgent, version string) Answer {
	if sc, ok := a.(StopContext); ok && sc.StopContext(version) {
		return jsonAnswer(map[string]any{
			"systemMessage":      notice(m),
			"hookSpecificOutput": map[string]string{"hookEventName": "Stop", "additionalContext": Frame(m)},
		})
	}
	// Codex 0.169 takes only this (its Stop output schema has no
	// hookSpecificOutput, and a systemMessage is a warning there).
	return jsonAnswer(map[string]string{"decision": "block", "reason": Frame(m)})
}

// postToolUseAnswer is the PostToolUse hook's answer handing message m to a
// Claude Code session at version (1.0 or 2.1: 2.0 records no hook context,
// so its messages wait for the Stop hook).
func postToolUseAnswer(m Message, version string) Answer {
	out := map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": "PostToolUse", "additionalContext": Frame(m)}}
	if agent.AtLeast(version, systemMessageSince) {
		out["systemMessage"] = notice(m)
	}
	return jsonAnswer(out)
}

// notice is what the person reads of a message where the agent shows a
// hook's systemMessage ("Stop says: From the side panel: …"); long words
// are cut as the bridge's stream cuts them.
func notice(m Message) string {
	text, cut := event.Cut(m.Text, event.MaxText)
	if cut {
		text += "…"
	}
	return panelLabel + text
}

func jsonAnswer(v any) Answer {
	out, _ := json.Marshal(v)
	return Answer{Stdout: string(out)}
}
