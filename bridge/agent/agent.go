// Package agent is the seam between the engine and each agent's record
// format. One package per format (bridge/transcript for Claude Code,
// bridge/codex for Codex) turns that format's lines into the bridge's
// events behind Parser; the engine tails files and never looks inside a
// line itself.
package agent

import (
	"encoding/json"

	"conductorbridge/bridge/event"
)

// Parser turns one session's record, line by line, into events. It is fed
// complete lines in file order by one goroutine; it is not safe for
// concurrent use. Events it returns carry no ID (the stream assigns them)
// and need not carry SessionID or Agent (the engine stamps both).
type Parser interface {
	// Line parses one line and appends its events to out. A line that is
	// not JSON returns an error and leaves the state untouched.
	Line(line []byte, out []event.Event) ([]event.Event, error)
	// Flush is called when the reader caught up with the end of the file.
	Flush(out []event.Event) []event.Event
	// Quiet is called after the file has been quiet for a while: a format
	// whose turn ends are only inferred ends the turn here.
	Quiet(out []event.Event) []event.Event
	// EndTurn is a hook's word that the agent finished its turn.
	EndTurn(out []event.Event) []event.Event
	// Interrupt ends the open turn because its agent is gone (killed,
	// crashed, its terminal closed) or the record is read to its end for
	// good: a turn that spent anything ends with a turn_complete marked
	// Interrupted, carrying every token and dollar spent so far; one
	// that spent nothing ends with none. The streams and `usage` both end
	// cut-off turns here, so they count them alike.
	Interrupt(out []event.Event) []event.Event
	// InTurn reports whether a turn is open (the agent is working).
	InTurn() bool
	// Unsure reports whether the open turn's end can only be inferred
	// from a quiet spell, so the engine arms its quiet timer.
	Unsure() bool
	// Version is the agent's version writing the record, "" if unknown.
	Version() string
	// Save returns the parser's state to journal with the events, so that
	// a restart resumes exactly where it stopped. It must stay small:
	// O(1) in the length of a turn.
	Save() (json.RawMessage, error)
}

// Waiter is a Parser that can tell from the record alone that the agent
// waits for the person: a question tool call with no answer yet, an
// approval request. Waiting returns the reason ("question", "approval"),
// or "" when the agent does not wait.
type Waiter interface {
	Waiting() string
}

// Asker is a Parser that keeps a wait a hook announced (Codex's
// PermissionRequest hook: the record never says Codex asks) in its own
// state, saved with it, and ends it when the record moves on.
type Asker interface {
	Ask(reason string)
}

// StopHooked is a Parser whose record's end of a turn a Stop hook can take
// back (Claude Code goes on with the turn from the hook's answer). Told
// that the session's hooks call the bridge, it holds each end until the
// hook says the turn is over (Quiet), so one turn is one turn_complete.
type StopHooked interface {
	HookedStops()
}
