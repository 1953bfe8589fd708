package opencode

import (
	"context"
	"fmt"
	"strings"
)

// ViaRun is the Via of a message `opencode run --session` carried.
const ViaRun = "opencode_run_session"

// Pusher is how a message reaches an OpenCode session (inject.Pusher): the
// bridge runs `opencode run --session <id>` with the message on stdin, a
// new turn in the same session, recorded in the same database.
//
// Only into an idle session. OpenCode 1.18.33 takes no lock across
// processes: a `run --session` while another process's turn is under way
// starts a second turn at once, whose model call carries the first turn's
// prompt without its unfinished tool call, and both processes write the
// session's rows interleaved (TestRunSessionWhileBusyRunsBeside), and
// no other route into a running turn serves (the package doc says why).
// So a message for a busy session waits in the queue and is run once the
// session is idle again.
type Pusher struct {
	Bin  string   // the opencode binary; "" means no route
	Args []string // extra arguments after `run`
	Env  []string // the run's environment (default: the bridge's)
}

// Name is the agent whose sessions it serves.
func (Pusher) Name() string { return Agent }

// Label is how a person reads it.
func (Pusher) Label() string { return "OpenCode" }

// Route pushes into an idle session; a busy one's message waits. A
// session listed under an id OpenCode never writes (a Conductor tab whose
// row names no OpenCode session yet, listed under the tab's own id) is
// refused at once: no `run --session` can be pointed at it, and a message
// queued for it would be retried for ever.
func (p Pusher) Route(session, _ string, busy bool) (bool, string) {
	if !IsSessionID(session) {
		return false, fmt.Sprintf("%q is not an OpenCode session id (ses_…): Conductor has not recorded which OpenCode session the tab runs", session)
	}
	if p.Bin == "" {
		return false, "no opencode binary found on PATH to run the session with"
	}
	return !busy, ""
}

// IsSessionID reports whether id is one OpenCode writes: ses_ and more.
func IsSessionID(id string) bool { return len(id) > len("ses_") && strings.HasPrefix(id, "ses_") }

// Push runs `opencode run --session` in dir with message.
func (p Pusher) Push(ctx context.Context, dir, session, message string) (interface {
	PID() int
	Wait() error
}, error) {
	r, err := RunSession(ctx, RunOptions{Bin: p.Bin, Session: session, Message: message, Dir: dir, Env: p.Env, Args: p.Args})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Held is false: OpenCode never refuses a session another process holds.
func (Pusher) Held(error) bool { return false }

// Via is ViaRun.
func (Pusher) Via() string { return ViaRun }
