// Package turn runs an agent's command for one turn of a session (Codex's
// `exec resume`, OpenCode's `run --session`): the message on its stdin,
// never in its arguments, where every user of the machine would read it;
// in its own process group, so a signal to the bridge's group does not
// cut the turn short and cancelling kills the commands it started too;
// its output kept for the error.
package turn

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// maxTail is how much of the output's end an error keeps.
const maxTail = 2000

// Command is one turn's command.
type Command struct {
	Bin     string
	Args    []string
	Dir     string
	Env     []string // the whole environment
	Message string   // written to stdin
}

// Running is a started turn.
type Running struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	out  *strings.Builder
}

// Start starts c and returns once it runs. Cancelling ctx kills the
// turn's process group.
func Start(ctx context.Context, c Command) (*Running, error) {
	cmd := exec.CommandContext(ctx, c.Bin, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = strings.NewReader(c.Message)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Bin, err)
	}
	r := &Running{cmd: cmd, done: make(chan struct{}), out: out}
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	return r, nil
}

// PID is the process id of the turn's command.
func (r *Running) PID() int { return r.cmd.Process.Pid }

// Wait waits for the turn to end and returns how the process ended, with
// the last 2000 bytes of its output (trimmed) when it failed.
func (r *Running) Wait() (tail string, err error) {
	<-r.done
	if r.err == nil {
		return "", nil
	}
	out := r.out.String()
	if len(out) > maxTail {
		out = out[len(out)-maxTail:]
	}
	return strings.TrimSpace(out), r.err
}
