package codex

import (
	"context"
	"errors"

	rollout "conductorbridge/bridge/codex"
)

// ViaResume is the Via of a message `codex exec resume` carried.
const ViaResume = "codex_exec_resume"

// Pusher is how a message reaches a Codex session (inject.Pusher): Codex
// takes no hook call while it is idle, so the bridge runs `codex exec
// resume <thread> <message>`, a new turn in the same thread, recorded in
// the same rollout. A busy 0.169 session gets it from the bridge's Stop
// hook at the end of its turn.
type Pusher struct {
	Agent
	Bin  string   // the codex binary; "" means no route for idle sessions
	Args []string // extra arguments after `exec` (tests: the sandbox)
	Env  []string // the resumed process's environment (default: the bridge's)
	// Hooked reports whether the bridge's Stop hook is in Codex's
	// config.toml and trusted (rollout.HooksStatus); nil: it is not.
	Hooked func() bool
}

// Route picks the route for a session Codex version writes
// (rollout.RouteFor): idle ones are resumed, busy ones wait for the Stop
// hook where there is one.
func (p Pusher) Route(_, version string, busy bool) (bool, string) {
	// Reading Codex's config only matters for a busy session (the Stop
	// hook's route); this runs on every pass while a message waits.
	hooked := busy && p.Hooked != nil && p.Hooked()
	route, err := rollout.RouteFor(version, busy, hooked)
	if err == nil && route == rollout.RouteResume && p.Bin == "" {
		return false, "no codex binary found on PATH to resume the session with"
	}
	if err != nil {
		var de *rollout.DeliverError
		if errors.As(err, &de) {
			return false, de.Reason
		}
		return false, err.Error()
	}
	return route == rollout.RouteResume, ""
}

// Push resumes thread in dir with message: the running resume's pid, and
// its Wait for the turn's end.
func (p Pusher) Push(ctx context.Context, dir, thread, message string) (interface {
	PID() int
	Wait() error
}, error) {
	r, err := rollout.Resume(ctx, rollout.ResumeOptions{
		Bin: p.Bin, CodexHome: p.Home, ThreadID: thread, Message: message, Dir: dir, Env: p.Env, Args: p.Args,
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Held reports whether another Codex process holds the thread.
func (Pusher) Held(err error) bool { return errors.Is(err, rollout.ErrSessionBusy) }

// Via is ViaResume.
func (Pusher) Via() string { return ViaResume }
