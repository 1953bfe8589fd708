package opencode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
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
type Running struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	out  *strings.Builder
}

// RunSession starts `opencode run --session <id>`, the message on its
// stdin (never in argv, where every user of the machine would read it),
// and returns once it runs; the turn is followed in the database like any
// other. Cancelling ctx kills the turn.
func RunSession(ctx context.Context, o RunOptions) (*Running, error) {
	if o.Bin == "" || o.Session == "" || strings.TrimSpace(o.Message) == "" {
		return nil, errors.New("opencode run needs a binary, a session id and a message")
	}
	if !strings.HasPrefix(o.Session, "ses_") {
		return nil, fmt.Errorf("opencode run: bad session id %q", o.Session)
	}
	args := append([]string{"run", "--session", o.Session}, o.Args...)
	cmd := exec.CommandContext(ctx, o.Bin, args...)
	cmd.Dir = o.Dir
	cmd.Env = o.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Stdin = strings.NewReader(o.Message)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: a signal to the bridge's group does not cut
	// the turn short, and cancelling kills its commands too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start opencode run: %w", err)
	}
	r := &Running{cmd: cmd, done: make(chan struct{}), out: out}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	return r, nil
}

// PID is the process id of the running opencode.
func (r *Running) PID() int { return r.cmd.Process.Pid }

// Wait waits for the turn to end and returns the process's error with the
// end of its output.
func (r *Running) Wait() error {
	<-r.done
	if r.err != nil {
		out := strings.TrimSpace(r.out.String())
		if len(out) > 2000 {
			out = out[len(out)-2000:]
		}
		return fmt.Errorf("opencode run: %w: %s", r.err, out)
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
