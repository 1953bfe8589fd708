package inject

import (
	"encoding/json"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// What each agent release prints for a hook's answer decides what the
// person sees of a message in Conductor's chat (the agent's stream-json)
// and in the agent's own terminal. The answers below are the ones that
// read best on the releases recorded in app/words_e2e_test.go; README's
// injection section has the table.

// stopContextSince is the first Claude Code release whose Stop hook can
// go on with the turn by hookSpecificOutput.additionalContext without it
// counting as a hook error (its changelog for 2.1.163; the bridge checks
// the behaviour on 2.1.328). Older releases reject a Stop hook's
// hookSpecificOutput (2.1) or ignore it (2.0), and the message would be
// lost: they get the block, which every release takes, and show it as a
// hook error.
var stopContextSince = [3]int{2, 1, 163}

// systemMessageSince is the first release whose systemMessage the
// bridge's answers carry: 2.1 shows it in its terminal and prints it in
// stream-json as a notice ({"type":"system","subtype":"informational"}),
// the only place the person's words appear there for hook context.
var systemMessageSince = [3]int{2, 1, 0}

// panelLabel starts the notice that shows the person's words.
const panelLabel = "From the side panel: "

// stopAnswer is the Stop hook's answer handing message m to a session of
// agent (discover.Agent*) at version.
func stopAnswer(m Message, agentName, version string) Answer {
	if agentName != discover.AgentCodex && agent.AtLeast(version, stopContextSince) {
		return jsonAnswer(map[string]any{
			"systemMessage":      notice(m),
			"hookSpecificOutput": map[string]string{"hookEventName": "Stop", "additionalContext": Frame(m)},
		})
	}
	// Codex 0.169 takes only this (its Stop output schema has no
	// hookSpecificOutput, and a systemMessage is a warning there); it
	// records the reason as a hook prompt, not an error.
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
