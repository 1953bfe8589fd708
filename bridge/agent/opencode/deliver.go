package opencode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"conductorbridge/bridge/turn"
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
