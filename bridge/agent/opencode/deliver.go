package opencode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/turn"
)

// ErrCannotDeliver is what every delivery refusal wraps: the API answers
// 409 with the DeliverError's reason.
var ErrCannotDeliver = errors.New("cannot deliver a message to this OpenCode session")

// DeliverError says why a message cannot reach an OpenCode session.
type DeliverError struct{ Reason string }

func (e *DeliverError) Error() string { return ErrCannotDeliver.Error() + ": " + e.Reason }

// Is makes errors.Is(err, ErrCannotDeliver) true.
func (e *DeliverError) Is(target error) bool { return target == ErrCannotDeliver }

// Route is how a message gets into an OpenCode session.
type Route string

const (
	// RouteRun runs `opencode run --session <id>` with the message on
	// stdin: a new turn in the same session, written to the same
	// database. For a session no turn is running in.
	RouteRun Route = "run-session"
	// RoutePromptAsync posts the message to the server of the OpenCode
	// process running the session (POST /session/<id>/prompt_async; every
	// `opencode acp` serves one on loopback): OpenCode records it at once
	// as the person's message and runs it when the turn under way ends.
	RoutePromptAsync Route = "prompt-async"
)

// RunOptions describe a delivery by `opencode run --session`.
type RunOptions struct {
	Bin     string // the opencode binary
	Session string // ses_…
	Message string
	Dir     string   // the session's folder
	Env     []string // the environment (default os.Environ())
	// Args are extra arguments after `run` (tests pass --auto).
	Args []string
}

// Running is a running `opencode run`.
type Running struct{ run *turn.Running }

// RunSession starts `opencode run --session <id>`, the message on its
// stdin (never in argv, where every user of the machine would read it),
// and returns once it runs; the turn is followed in the database like any
// other. Cancelling ctx kills the turn.
func RunSession(ctx context.Context, o RunOptions) (*Running, error) {
	if o.Bin == "" || o.Session == "" || strings.TrimSpace(o.Message) == "" {
		return nil, errors.New("opencode run needs a binary, a session id and a message")
	}
	if !IsSessionID(o.Session) {
		return nil, fmt.Errorf("opencode run: bad session id %q", o.Session)
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	run, err := turn.Start(ctx, turn.Command{Bin: o.Bin, Args: append([]string{"run", "--session", o.Session}, o.Args...),
		Dir: o.Dir, Env: env, Message: o.Message})
	if err != nil {
		return nil, fmt.Errorf("opencode run: %w", err)
	}
	return &Running{run: run}, nil
}

// PID is the process id of the running opencode.
func (r *Running) PID() int { return r.run.PID() }

// Wait waits for the turn to end and returns the process's error with the
// end of its output.
func (r *Running) Wait() error {
	if out, err := r.run.Wait(); err != nil {
		return fmt.Errorf("opencode run: %w: %s", err, out)
	}
	return nil
}

// IsProcess reports whether a process, by its command name and arguments,
// is OpenCode: the npm launcher or its binary (`opencode`, also
// Conductor's …/acp-providers/opencode/<ver>/<platform>/opencode acp).
func IsProcess(comm string, argv []string) bool {
	if strings.HasPrefix(comm, "opencode") {
		return true
	}
	return len(argv) > 0 && strings.HasPrefix(filepath.Base(argv[0]), "opencode")
}

// SessionArg is the session a process's arguments name (`-s`,
// `--session`, `--session=`), "" if none.
func SessionArg(argv []string) string {
	for i, a := range argv {
		switch {
		case (a == "-s" || a == "--session") && i+1 < len(argv):
			return argv[i+1]
		case strings.HasPrefix(a, "--session="):
			return strings.TrimPrefix(a, "--session=")
		}
	}
	return ""
}
