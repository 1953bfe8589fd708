// Package event holds the bridge's wire contract: the compact events a
// workspace's session stream carries (see DESIGN.md, "The session stream").
//
// One flat struct carries every kind of event so the hot path (parse a
// transcript line, fan it out to subscribers) allocates little. MarshalJSON
// writes only the fields that belong to the event's Type, so clients see a
// small, stable object per type — and the false booleans that matter
// ("truncated_input": false) are present rather than omitted.
package event

import (
	"time"
	"unicode/utf8"
)

// Types of event, which are also the SSE event names.
const (
	Assistant    = "assistant"
	Thinking     = "thinking"
	ToolUse      = "tool_use"
	ToolResult   = "tool_result"
	User         = "user"
	TurnComplete = "turn_complete"
	Status       = "status"
	Session      = "session"
	Pairing      = "pairing"
	Gap          = "gap"
	// Browse is an action of the workspace's gstack browser (bridge/browse):
	// not an agent's record, so it names no session.
	Browse = "browse"
)

// Actions of a browse event: gstack's activity entry types, shortened, and
// gap for entries the bridge never got (the browse server no longer had
// them, or it sent more than the bridge takes).
const (
	BrowseStart      = "start"      // command_start
	BrowseEnd        = "end"        // command_end
	BrowseNavigation = "navigation" // navigation
	BrowseError      = "error"      // error
	BrowseGap        = "gap"
)

// Agent states carried by Status events and reported per workspace.
const (
	StateWorking    = "working"
	StateIdle       = "idle"
	StateNeedsInput = "needs_input"
	StateError      = "error"
)

// Reasons a needs_input status gives, the same for every agent so a
// client treats them alike.
const (
	// ReasonPermission: a tool call waits for the person's approval
	// (Claude Code's permission_prompt notification; a Codex approval).
	ReasonPermission = "permission_prompt"
	// ReasonQuestion: the agent asked the person a question.
	ReasonQuestion = "question"
)

// FollowReason marks the session event a follow stream (GET /session/stream)
// opens each workspace with; Workspace is "" while nothing is paired.
const FollowReason = "follow"

// InjectedMarker starts the frame around a message the bridge injected
// (inject.Frame). The transcript parser looks for it to show such a
// message as the person's own input wherever Claude Code recorded it.
const InjectedMarker = "[Conductor Bridge message "

// MaxText is the cut, in runes, applied to every text, tool input and tool
// output that leaves the bridge. It is a privacy feature as much as a size
// limit: long code and file contents stay in the agent's own UI.
const MaxText = 500

// Event is one item of a workspace's session stream.
type Event struct {
	ID   int64     // strictly increasing per workspace, stable across restarts
	Type string    // one of the constants above
	TS   time.Time // when it happened (the transcript's timestamp where known)

	SessionID string // the agent session the event belongs to (Claude uuid, Codex thread id)
	Agent     string // the agent that wrote it: "claude", "codex"; "" is read as claude
	Sidechain bool   // from a subagent (Task) rather than the main agent

	// assistant, thinking, user
	Content   string
	Truncated bool
	MessageID string // user: the injected message this is (sent from the side panel)
	// System marks a user record the person did not type: Conductor's
	// <system_instruction> first prompt, Codex's <environment_context> and
	// <user_instructions> preambles. Viewers fold it away.
	System bool

	// tool_use and tool_result
	Name      string // tool name; on results resolved from the tool_use id
	ToolUseID string
	Input     string // tool_use: readable input (Bash command, file path, compact JSON)
	TruncIn   bool
	Output    string // tool_result
	TruncOut  bool
	IsError   bool

	// turn_complete. Usage and CostUSD include every subagent the turn
	// ran; SubagentUsage and SubagentCostUSD say how much of it that was.
	// CostKnown is false when some model of the turn has no price: the
	// wire then says "cost_usd": null, never a silent 0.
	Usage           Usage
	CostUSD         float64
	CostKnown       bool
	SubagentUsage   Usage
	SubagentCostUSD float64
	DurationMS      int64
	Model           string
	// Interrupted: the turn did not finish — the person stopped it, or
	// its agent died — and Usage is what it spent until then.
	Interrupted bool

	// status
	State  string // working / idle / needs_input / error
	Reason string // why, e.g. "permission_prompt"

	// session: the new session's transcript path; for a workspace switch the
	// workspace id it switched to.
	Path      string
	Workspace string

	// pairing (and session on a follow stream): whether Workspace is now
	// paired with Chrome.
	Paired bool

	// browse (DurationMS too, and GapFrom/AvailableFrom, in the browse
	// server's ids, for its gap action). Command is cut like a name, Args
	// and Result like text, Error like a status reason, URL like a path.
	Action   string
	Command  string
	Args     string // the arguments, joined by spaces
	URL      string
	OK       bool // end: the command succeeded
	Error    string
	Result   string
	BrowseID int64 // the browse server's own id of the entry

	// gap
	GapFrom       int64
	AvailableFrom int64
}

// Usage counts tokens by kind for one turn, in Anthropic's convention for
// every agent: InputTokens never includes cache reads or writes.
// CacheCreationTokens is every cache write; Cache1hTokens is the part of it
// written at the 1-hour rate. ReasoningOutputTokens (Codex) is the part of
// OutputTokens spent reasoning.
type Usage struct {
	InputTokens           int64 `json:"input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	CacheCreationTokens   int64 `json:"cache_creation_input_tokens"`
	CacheReadTokens       int64 `json:"cache_read_input_tokens"`
	Cache1hTokens         int64 `json:"cache_creation_1h_input_tokens,omitempty"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens,omitempty"`
}

// MaxTokens bounds a token count read from an agent's record: no model
// response comes near it (a context holds a few million tokens).
const MaxTokens = 1 << 32

// Tokens returns a count read from an agent's record when it is one: a
// negative count, or one beyond MaxTokens, is a damaged or forged line's,
// and counts as none (it would push a turn's and a day's sums down, or
// overflow them).
func Tokens(n int64) int64 {
	if n < 0 || n > MaxTokens {
		return 0
	}
	return n
}

// Add returns u plus v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:           u.InputTokens + v.InputTokens,
		OutputTokens:          u.OutputTokens + v.OutputTokens,
		CacheCreationTokens:   u.CacheCreationTokens + v.CacheCreationTokens,
		CacheReadTokens:       u.CacheReadTokens + v.CacheReadTokens,
		Cache1hTokens:         u.Cache1hTokens + v.Cache1hTokens,
		ReasoningOutputTokens: u.ReasoningOutputTokens + v.ReasoningOutputTokens,
	}
}

// Cut shortens s to at most n runes, never splitting a UTF-8 sequence, and
// reports whether anything was cut. Invalid UTF-8 is kept byte for byte; it
// is the JSON encoder's job to make it safe.
func Cut(s string, n int) (string, bool) {
	if len(s) <= n { // n bytes can hold at most n runes
		return s, false
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i], true
		}
		count++
	}
	return s, false
}

// CutBytes is Cut for a record's raw bytes: only the kept part is copied
// into the string, so a multi-megabyte tool output costs n runes. The
// agents' parsers cut every text with it.
func CutBytes(b []byte, n int) (string, bool) {
	if len(b) <= n {
		return string(b), false
	}
	count, i := 0, 0
	for i < len(b) && count < n {
		_, size := utf8.DecodeRune(b[i:])
		i += size
		count++
	}
	return string(b[:i]), i < len(b)
}
