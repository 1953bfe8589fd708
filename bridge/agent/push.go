package agent

import "context"

// Pushing is an agent whose idle sessions take a message by the bridge
// running the agent on them (Codex's `exec resume`, OpenCode's `run
// --session`), not by a hook's call. The bridge delivers its queued
// messages through the Pusher it makes (inject.Delivery) and mounts that
// as the agent's route, so the messages API asks it whether a message can
// reach a session of the agent now.
type Pushing interface {
	Agent
	// NewPusher makes the agent's Pusher, once, when the bridge starts:
	// it looks for the agent's binary on PATH then.
	NewPusher() Pusher
}

// Pusher is how messages reach one agent's sessions (Pushing).
type Pusher interface {
	// Name is the agent (sessions.agent_type) whose sessions it serves.
	Name() string
	// Label is how a person reads the agent ("Codex").
	Label() string
	// Route says whether a message is pushed into a session written by
	// version now (push), or waits — for the session's Stop hook, or to
	// be pushed once the session is idle (false and no refusal) — or why
	// nothing can take it now (refusal). busy says a process of the agent
	// holds the session or a turn is open. session is the session's id
	// as the bridge lists it: an id the agent never writes can be refused.
	Route(session, version string, busy bool) (push bool, refusal string)
	// Push runs the agent in dir on session with message, and returns
	// once it started.
	Push(ctx context.Context, dir, session, message string) (Pushed, error)
	// Held reports whether a push failed because another process holds
	// the session (nothing was delivered; the message waits its turn).
	Held(err error) bool
	// Via is the Message.Via of a message a push carried.
	Via() string
}

// Pushed is a running push: its pid, and Wait, which waits for the turn
// to end. An alias of a plain interface, so a driver's own type is one.
type Pushed = interface {
	PID() int
	Wait() error
}
