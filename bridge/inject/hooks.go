package inject

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
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
	// HookPermissionRequest is Codex's PermissionRequest hook (0.169):
	// Codex runs it just before it asks the person to approve a tool
	// call, which its rollout never records. The bridge shows the session
	// as needing input and leaves the decision to the person.
	HookPermissionRequest = "permission-request"
)

// ReasonPermission is the needs_input reason of a permission or approval
// prompt (event.ReasonPermission).
const ReasonPermission = event.ReasonPermission

// hookEvents are the hook events of the bridge's own. Codex's Stop hook
// (0.169) is HookStop: its input has the same fields.
var hookEvents = []string{HookStop, HookRewake, HookPostToolUse, HookNotification, HookSessionStart, HookSessionEnd, HookUserPromptSubmit, HookPermissionRequest}

// Notifier is a HookAgent with a notify program of its own that calls in
// after every turn (Codex's notify, all releases: the exact turn end
// 0.47's files do not write). NotifyHook is the hook event it calls in
// as; such a call ends the turn and says nothing of the session's other
// hooks.
type Notifier interface {
	HookAgent
	NotifyHook() string
}

// Events lists every hook event the bridge answers: its own, and each
// agent's notify (Notifier).
func Events(agents []HookAgent) []string {
	out := slices.Clone(hookEvents)
	for _, a := range agents {
		if n, ok := a.(Notifier); ok {
			out = append(out, n.NotifyHook())
		}
	}
	return out
}

// Notify reports whether event is an agent's notify program's call
// (Notifier).
func Notify(agents []HookAgent, event string) bool {
	for _, a := range agents {
		if n, ok := a.(Notifier); ok && n.NotifyHook() == event {
			return true
		}
	}
	return false
}

// Knows reports whether event is a hook event h answers.
func (h *Hooks) Knows(event string) bool {
	return slices.Contains(hookEvents, event) || Notify(h.Agents, event)
}

// Engine is what answering hooks needs from the engine. Every call names
// the session it comes from (engine.Call), so a workspace with several
// tabs routes each hook to its own session.
type Engine interface {
	Place(c engine.Call) (string, bool)
	// Adopted reports whether a workspace is Conductor's or registered
	// with the bridge, as opposed to a plain Claude Code project.
	Adopted(id string) bool
	// Session describes one session of a workspace: its agent and the
	// version writing it pick the hook's answer.
	Session(ws, session string) (engine.SessionInfo, bool)
	NeedsInput(ctx context.Context, ws string, c engine.Call, reason string) bool
	TurnEnded(ctx context.Context, ws string, c engine.Call) bool
	// TurnGoesOn says the Stop hook went on with the turn (it handed a
	// message over), before the agent hears the answer.
	TurnGoesOn(ctx context.Context, ws string, c engine.Call) bool
	Relook(ws string, c engine.Call)
	// AgentPID records (running) or forgets the agent process a call
	// came from as its session's.
	AgentPID(ws string, c engine.Call, running bool)
	// HooksCall notes that the session's hooks call in: its turn ends
	// then wait for its Stop hook, which may go on with the turn.
	HooksCall(ws string, c engine.Call)
	Hint(ctx context.Context, cwd, transcriptPath string) (string, bool)
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

	// WorkspacePath is CONDUCTOR_WORKSPACE_PATH from the hook's own
	// environment, which the relay adds when the agent runs under
	// Conductor (it is not part of Claude Code's input).
	WorkspacePath string `json:"-"`

	// PID is the agent process the relay found above itself (0: none), as
	// the relay adds it.
	PID int `json:"-"`

	// UserScope is set for hooks installed in the user's own settings,
	// which run in every Claude Code session on the machine: those act
	// only in Conductor's and registered workspaces.
	UserScope bool `json:"-"`
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
	Seen   *Seen // when each workspace's hooks last called in (nil: not kept)
	// Agents are the drivers of the agents whose hooks call in, the
	// default first; a session's answers follow what its agent takes.
	Agents []HookAgent

	mu      sync.Mutex
	waiters map[waiterKey]context.CancelFunc // session → its waiting rewake hook
	hinted  map[string]time.Time             // cwd → when a hook from it last asked to be adopted
}

// agent is the driver named name, nil if none; "" names the first (the
// default agent, as the engine's listing has it).
func (h *Hooks) agent(name string) HookAgent {
	if name == "" && len(h.Agents) > 0 {
		return h.Agents[0]
	}
	for _, a := range h.Agents {
		if a.Name() == name {
			return a
		}
	}
	return nil
}

// Handle answers one hook call. Unknown workspaces and events get an empty
// answer: the hook then does nothing and the agent carries on.
func (h *Hooks) Handle(ctx context.Context, event string, in HookInput) Answer {
	ws, ok := h.workspace(ctx, in)
	h.Log.Debug().Str("hook", event).Str("cwd", in.Cwd).Str("workspace", ws).Msg("hook call")
	if !ok {
		return Answer{}
	}
	if h.Seen != nil {
		h.Seen.Record(ws, event)
	}
	call := in.call()
	h.Engine.AgentPID(ws, call, event != HookSessionEnd)
	if Notify(h.Agents, event) {
		h.Engine.TurnEnded(ctx, ws, call)
		return Answer{}
	}
	if event != HookSessionEnd {
		h.Engine.HooksCall(ws, call)
	}
	switch event {
	case HookStop:
		// A message handed over goes on with the turn (one turn, one
		// turn_complete); only without one is the turn over now.
		if m, ok := h.take(ctx, ws, "stop", in.SessionID); ok {
			h.Engine.TurnGoesOn(ctx, ws, call)
			si, _ := h.Engine.Session(ws, in.SessionID)
			return stopAnswer(m, h.agent(si.Agent), si.Version)
		}
		h.Engine.TurnEnded(ctx, ws, call)
	case HookRewake:
		return h.rewake(ctx, ws, in.SessionID)
	case HookPostToolUse:
		h.cancelWaiter(ws, in.SessionID) // busy: a waiting rewake hook must not fire mid-turn
		si, _ := h.Engine.Session(ws, in.SessionID)
		if v := si.Version; v == "" || strings.HasPrefix(v, "2.0.") {
			// 2.0 passes additional context to the model but records it
			// nowhere: the bridge could never confirm it. Such a message
			// (or one for a session whose version is not read yet) waits
			// for the Stop hook, which every version records.
			break
		}
		if m, ok := h.take(ctx, ws, "post_tool_use", in.SessionID); ok {
			return postToolUseAnswer(m, si.Version)
		}
	case HookUserPromptSubmit:
		h.cancelWaiter(ws, in.SessionID)
	case HookPermissionRequest:
		// No output: Codex goes on to ask the person, as without the hook.
		h.Engine.NeedsInput(ctx, ws, call, ReasonPermission)
	case HookNotification:
		reason := in.NotificationType
		if reason == "" {
			reason = in.Message
		}
		h.Engine.NeedsInput(ctx, ws, call, reason)
	case HookSessionStart:
		h.Engine.Relook(ws, call)
	case HookSessionEnd:
		h.cancelWaiter(ws, in.SessionID) // Claude Code waits for its rewake hook before it exits
		h.Engine.Relook(ws, engine.Call{})
	}
	return Answer{}
}

func (in HookInput) call() engine.Call {
	return engine.Call{SessionID: in.SessionID, TranscriptPath: in.TranscriptPath, Cwd: in.Cwd, WorkspacePath: in.WorkspacePath, PID: in.PID}
}

// workspace finds the workspace a hook call comes from. A session that
// started since the last scan is not known yet: its hook call adopts it
// (at most once a second per directory, since with user-scope hooks every
// Claude Code session on the machine calls in).
func (h *Hooks) workspace(ctx context.Context, in HookInput) (string, bool) {
	if in.UserScope {
		ws, ok := h.Engine.Place(in.call())
		return ws, ok && h.Engine.Adopted(ws)
	}
	if ws, ok := h.Engine.Place(in.call()); ok {
		return ws, true
	}
	h.mu.Lock()
	if h.hinted == nil {
		h.hinted = make(map[string]time.Time)
	}
	due := time.Since(h.hinted[in.Cwd]) >= time.Second
	if due {
		h.hinted[in.Cwd] = time.Now()
	}
	h.mu.Unlock()
	if !due {
		return "", false
	}
	return h.Engine.Hint(ctx, in.Cwd, in.TranscriptPath)
}

func (h *Hooks) take(ctx context.Context, ws, via, session string) (Message, bool) {
	if ctx.Err() != nil {
		return Message{}, false // the hook gave up waiting: it could not pass the message on
	}
	m, ok, err := h.Queue.Take(ws, via, session)
	if err != nil {
		h.Log.Error().Err(err).Str("workspace", ws).Msg("hand message to hook")
		return Message{}, false
	}
	if ok {
		h.Log.Info().Str("workspace", ws).Str("msg_id", m.ID).Str("via", via).Msg("message handed to the agent")
	}
	return m, ok
}

// waiterKey names one session's waiting rewake hook.
type waiterKey struct{ ws, session string }

// rewake waits until a message for the session is queued, then answers
// exit 2 with the message on stderr, which wakes an idle agent. One waiter
// per session: a newer one (after the next turn) replaces it, and any sign
// that the agent is busy again sends it home empty-handed.
func (h *Hooks) rewake(ctx context.Context, ws, session string) Answer {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	key := waiterKey{ws, session}
	h.mu.Lock()
	if h.waiters == nil {
		h.waiters = make(map[waiterKey]context.CancelFunc)
	}
	if old := h.waiters[key]; old != nil {
		old()
	}
	h.waiters[key] = cancel
	h.mu.Unlock()
	defer h.dropWaiter(key, ctx)
	for {
		if err := h.Queue.WaitFor(ctx, ws, session); err != nil {
			return Answer{}
		}
		if m, ok := h.take(ctx, ws, "rewake", session); ok {
			return Answer{Stderr: Frame(m), Exit: 2}
		}
		if ctx.Err() != nil {
			return Answer{}
		}
	}
}

func (h *Hooks) cancelWaiter(ws, session string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	key := waiterKey{ws, session}
	if c := h.waiters[key]; c != nil {
		c()
		delete(h.waiters, key)
	}
}

// dropWaiter forgets a session's waiter if it is still the one of ctx.
func (h *Hooks) dropWaiter(key waiterKey, ctx context.Context) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return // already replaced or cancelled
	}
	delete(h.waiters, key)
}
