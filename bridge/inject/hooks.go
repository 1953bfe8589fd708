package inject

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/rs/zerolog"
)

// Hook events, as `conductor-bridge hook <event>` names them.
const (
	HookStop             = "stop"               // Stop, synchronous: deliver at the end of a turn
	HookRewake           = "rewake"             // Stop with asyncRewake: wait, then wake an idle agent
	HookPostToolUse      = "post-tool-use"      // deliver mid-turn, after a tool call
	HookNotification     = "notification"       // the agent needs the person
	HookSessionStart     = "session-start"      // follow a new session at once
	HookSessionEnd       = "session-end"        //
	HookUserPromptSubmit = "user-prompt-submit" // the agent is busy again
)

// Events lists every hook event the bridge answers.
var Events = []string{HookStop, HookRewake, HookPostToolUse, HookNotification, HookSessionStart, HookSessionEnd, HookUserPromptSubmit}

// Engine is what answering hooks needs from the engine.
type Engine interface {
	WorkspaceFor(cwd, transcriptPath string) (string, bool)
	NeedsInput(ctx context.Context, id, reason string) bool
	TurnEnded(ctx context.Context, id string) bool
	Relook(id string)
}

// HookInput is what Claude Code gives a hook on stdin (the fields used).
type HookInput struct {
	SessionID        string `json:"session_id"`
	TranscriptPath   string `json:"transcript_path"`
	Cwd              string `json:"cwd"`
	HookEventName    string `json:"hook_event_name"`
	StopHookActive   bool   `json:"stop_hook_active"`
	NotificationType string `json:"notification_type"`
	Message          string `json:"message"`
}

// Answer is what the hook process should print and exit with.
type Answer struct {
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit"`
}

// Hooks answers hook calls: hands queued messages to the one hook that can
// deliver them now, and turns hook events into agent state.
type Hooks struct {
	Queue  *Queue
	Engine Engine
	Log    zerolog.Logger

	mu      sync.Mutex
	waiters map[string]context.CancelFunc // workspace → its waiting rewake hook
}

// Handle answers one hook call. Unknown workspaces and events get an empty
// answer: the hook then does nothing and the agent carries on.
func (h *Hooks) Handle(ctx context.Context, event string, in HookInput) Answer {
	ws, ok := h.Engine.WorkspaceFor(in.Cwd, in.TranscriptPath)
	if !ok {
		return Answer{}
	}
	switch event {
	case HookStop:
		h.Engine.TurnEnded(ctx, ws)
		if m, ok := h.take(ws, "stop", in.SessionID); ok {
			out, _ := json.Marshal(map[string]string{"decision": "block", "reason": Frame(m)})
			return Answer{Stdout: string(out)}
		}
	case HookRewake:
		return h.rewake(ctx, ws, in.SessionID)
	case HookPostToolUse:
		h.cancelWaiter(ws) // busy: a waiting rewake hook must not fire mid-turn
		if m, ok := h.take(ws, "post_tool_use", in.SessionID); ok {
			out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
				"hookEventName": "PostToolUse", "additionalContext": Frame(m)}})
			return Answer{Stdout: string(out)}
		}
	case HookUserPromptSubmit:
		h.cancelWaiter(ws)
	case HookNotification:
		reason := in.NotificationType
		if reason == "" {
			reason = in.Message
		}
		h.Engine.NeedsInput(ctx, ws, reason)
	case HookSessionStart, HookSessionEnd:
		h.Engine.Relook(ws)
	}
	return Answer{}
}

func (h *Hooks) take(ws, via, session string) (Message, bool) {
	m, ok, err := h.Queue.Take(ws, via, session)
	if err != nil {
		h.Log.Error().Err(err).Str("workspace", ws).Msg("hand message to hook")
		return Message{}, false
	}
	if ok {
		h.Log.Info().Str("workspace", ws).Str("message", m.ID).Str("via", via).Msg("message handed to the agent")
	}
	return m, ok
}

// rewake waits until a message is queued, then answers exit 2 with the
// message on stderr, which wakes an idle agent. One waiter per workspace:
// a newer one (after the next turn) replaces it, and any sign that the
// agent is busy again sends it home empty-handed.
func (h *Hooks) rewake(ctx context.Context, ws, session string) Answer {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	h.mu.Lock()
	if h.waiters == nil {
		h.waiters = make(map[string]context.CancelFunc)
	}
	if old := h.waiters[ws]; old != nil {
		old()
	}
	h.waiters[ws] = cancel
	h.mu.Unlock()
	defer h.dropWaiter(ws, ctx)
	for {
		if err := h.Queue.Wait(ctx, ws); err != nil {
			return Answer{}
		}
		if m, ok := h.take(ws, "rewake", session); ok {
			return Answer{Stderr: Frame(m), Exit: 2}
		}
	}
}

func (h *Hooks) cancelWaiter(ws string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.waiters[ws]; c != nil {
		c()
		delete(h.waiters, ws)
	}
}

// dropWaiter forgets ws's waiter if it is still the one of ctx.
func (h *Hooks) dropWaiter(ws string, ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return // already replaced or cancelled
	}
	delete(h.waiters, ws)
}
