package codex

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Notification is what Codex passes its notify program, as the last
// argument, after each turn (every release; 0.47 sends "turn-id": "0" and
// no cwd).
type Notification struct {
	Type                 string   `json:"type"` // "agent-turn-complete"
	ThreadID             string   `json:"thread-id"`
	TurnID               string   `json:"turn-id"`
	Cwd                  string   `json:"cwd"`
	Client               string   `json:"client"` // "codex_exec", … (0.169)
	InputMessages        []string `json:"input-messages"`
	LastAssistantMessage string   `json:"last-assistant-message"`
}

// NotifyEvent is the hook event Codex's notify program calls the bridge
// as (`conductor-bridge hook codex-notify`, which InstallHooks is given as
// HookSpec.Notify): it runs after every turn (all releases), the exact
// turn end 0.47's files do not write.
const NotifyEvent = "codex-notify"

// NotifyTurnComplete is the notification type that ends a turn.
const NotifyTurnComplete = "agent-turn-complete"

// ParseNotify reads the notify program's JSON argument.
func ParseNotify(arg string) (Notification, error) {
	var n Notification
	if err := json.Unmarshal([]byte(arg), &n); err != nil {
		return Notification{}, fmt.Errorf("codex notify argument: %w", err)
	}
	if n.Type == "" {
		return Notification{}, fmt.Errorf("codex notify argument has no type")
	}
	return n, nil
}

// StopInput is what Codex (0.169) writes to a Stop hook's stdin.
type StopInput struct {
	SessionID            string `json:"session_id"` // the thread id
	TurnID               string `json:"turn_id"`
	TranscriptPath       string `json:"transcript_path"` // the rollout file
	Cwd                  string `json:"cwd"`
	HookEventName        string `json:"hook_event_name"` // "Stop"
	Model                string `json:"model"`
	PermissionMode       string `json:"permission_mode"`
	StopHookActive       bool   `json:"stop_hook_active"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

// maxHookInput bounds what a hook reads from stdin: the input holds the
// last message, never megabytes.
const maxHookInput = 1 << 20

// ParseStopInput reads a Stop hook's stdin.
func ParseStopInput(r io.Reader) (StopInput, error) {
	var in StopInput
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput))
	if err != nil {
		return in, fmt.Errorf("read codex stop hook input: %w", err)
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("codex stop hook input: %w", err)
	}
	return in, nil
}

// StopBlock is the Stop hook output that makes Codex go on with message as
// the next user input instead of ending the turn. The hook prints nothing
// (and exits 0) to let the turn end.
func StopBlock(message string) ([]byte, error) {
	if strings.TrimSpace(message) == "" {
		// Codex rejects a block without a reason; ending the turn is
		// better than a hook error.
		return nil, fmt.Errorf("codex stop hook: empty message")
	}
	out, err := json.Marshal(map[string]string{"decision": "block", "reason": message})
	if err != nil {
		return nil, fmt.Errorf("codex stop hook output: %w", err)
	}
	return append(out, '\n'), nil
}
