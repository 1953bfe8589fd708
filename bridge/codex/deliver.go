package codex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/turn"
)

// ErrCannotDeliver is what every delivery refusal wraps: the API answers
// 409 with the DeliverError's reason.
var ErrCannotDeliver = errors.New("cannot deliver a message to this Codex session")

// DeliverError says why a message cannot reach a Codex session.
type DeliverError struct{ Reason string }

func (e *DeliverError) Error() string { return ErrCannotDeliver.Error() + ": " + e.Reason }

// Is makes errors.Is(err, ErrCannotDeliver) true.
func (e *DeliverError) Is(target error) bool { return target == ErrCannotDeliver }

// ErrSessionBusy is what Resumed.Wait returns when another Codex process
// holds the thread (0.169 refuses a second writer: "thread-store conflict:
// … already has an active writer"); nothing was delivered. 0.47 has no
// such lock and would interleave both processes' lines in one rollout, so
// never resume a 0.47 session a process still runs (RouteFor).
var ErrSessionBusy = errors.New("another Codex process holds this session")

// Route is how a message gets into a Codex session.
type Route string

const (
	// RouteResume runs `codex exec resume <thread> -` with the message on
	// stdin: a new turn
	// in the same thread, recorded in the same rollout file. For a session
	// no Codex process is running.
	RouteResume Route = "exec-resume"
	// RouteStopHook hands the message to the bridge's Stop hook, which
	// Codex runs when the busy session's turn is about to end: it answers
	// {"decision":"block","reason":message} and the agent goes on with it.
	RouteStopHook Route = "stop-hook"
)

// hooksSince is the first release the Stop hook route is verified with;
// older ones (0.47) have no hooks.
var hooksSince = [3]int{0, 169, 0}

// RouteFor picks the route for a session written by Codex version:
// busy says a Codex process is running the session (a turn is open, or an
// interactive Codex or Conductor holds it). hooked says the bridge's Stop
// hook is installed and trusted (HooksStatus). A session no route reaches
// gets a *DeliverError. busy must be right for 0.47: resuming a thread
// another process runs makes both write one rollout, interleaved (0.169
// refuses instead: ErrSessionBusy).
func RouteFor(version string, busy, hooked bool) (Route, error) {
	if !busy {
		return RouteResume, nil
	}
	if !agent.AtLeast(version, hooksSince) {
		return "", &DeliverError{Reason: fmt.Sprintf("Codex %s has no hooks to take a message while it runs; send it once the session is idle", orUnknown(version))}
	}
	if !hooked {
		return "", &DeliverError{Reason: "the bridge's Codex Stop hook is not installed (conductor-bridge hooks install); send it once the session is idle"}
	}
	return RouteStopHook, nil
}

func orUnknown(v string) string {
	if v == "" {
		return "(unknown version)"
	}
	return v
}

// ResumeOptions describe a delivery by `codex exec resume`.
type ResumeOptions struct {
	Bin       string // the codex binary
	CodexHome string // the session's CODEX_HOME ("" keeps the environment's)
	ThreadID  string
	Message   string
	Dir       string   // working directory (the session's cwd)
	Env       []string // the environment (default os.Environ()), CODEX_HOME set from CodexHome
	// Args are extra arguments after `exec` (tests pass sandbox flags;
	// by default the session's own settings apply).
	Args []string
}

// Resumed is a running `codex exec resume`.
type Resumed struct{ run *turn.Running }

// Resume starts `codex exec resume <thread> -`, the message on its stdin,
// and returns once it runs; the turn itself is followed in the rollout
// like any other (the message shows up as a user event: delivered), and
// Wait reports how the process ended. Cancelling ctx kills the turn.
func Resume(ctx context.Context, o ResumeOptions) (*Resumed, error) {
	if o.Bin == "" || o.ThreadID == "" || strings.TrimSpace(o.Message) == "" {
		return nil, errors.New("codex resume needs a binary, a thread id and a message")
	}
	if strings.HasPrefix(o.ThreadID, "-") {
		return nil, fmt.Errorf("codex resume: bad thread id %q", o.ThreadID)
	}
	args := append([]string{"exec", "--skip-git-repo-check"}, o.Args...)
	// The prompt "-" makes codex read it from stdin (0.47 and 0.169 alike):
	// a message in argv is in `ps` for every user of the machine for the
	// whole turn, and in every retry.
	args = append(args, "resume", o.ThreadID, "-")
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	if o.CodexHome != "" {
		env = append(append([]string(nil), env...), "CODEX_HOME="+o.CodexHome)
	}
	run, err := turn.Start(ctx, turn.Command{Bin: o.Bin, Args: args, Dir: o.Dir, Env: env, Message: o.Message})
	if err != nil {
		return nil, fmt.Errorf("codex exec resume: %w", err)
	}
	return &Resumed{run: run}, nil
}

// PID is the process id of the running codex.
func (r *Resumed) PID() int { return r.run.PID() }

// Wait waits for the turn to end and returns the process's error with the
// end of its output.
func (r *Resumed) Wait() error {
	out, err := r.run.Wait()
	if err == nil {
		return nil
	}
	if strings.Contains(out, "already has an active writer") {
		return fmt.Errorf("codex exec resume: %w (%v)", ErrSessionBusy, err)
	}
	return fmt.Errorf("codex exec resume: %w: %s", err, out)
}
