package agenttest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Gate holds a shell command an agent runs, mid-turn, until the test
// opens it: Command is what the model asks the agent to run, Started
// waits until the agent runs it, Recorded until the agent's record on
// disk holds the call, Open lets it through. An agent may run a tool
// before its record says so: Claude Code queues its transcript lines and
// writes them a moment later, so a test that kills the agent once the
// command started, and wants the call on record, waits for Recorded.
type Gate struct {
	dir, started, open string
}

// NewGate makes a gate whose files live in dir.
func NewGate(dir string) *Gate {
	return &Gate{dir: dir, started: filepath.Join(dir, "gate-started"), open: filepath.Join(dir, "gate-open")}
}

// Command is the shell command to run: it says it started, then waits for
// the gate to open, then prints "through". It also ends once the gate's
// folder is gone: a test that killed the agent mid-command never opens the
// gate, and its orphaned shell would otherwise poll for ever after the
// test removed its temporary folder (dozens of them, each forking a sleep
// 20 times a second, were found slowing the machine).
func (g *Gate) Command() string {
	return "touch '" + g.started + "'; while [ ! -f '" + g.open + "' ] && [ -d '" + g.dir + "' ]; do sleep 0.05; done; echo through"
}

// Started waits until the command runs, or ctx ends.
func (g *Gate) Started(ctx context.Context) error {
	for {
		if _, err := os.Stat(g.started); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the gated command never started: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Open lets the command through.
func (g *Gate) Open() error { return os.WriteFile(g.open, nil, 0o644) }

// Recorded waits until a file matching glob (an agent's record: a
// transcript, a rollout) holds this gate's command, or ctx ends.
func (g *Gate) Recorded(ctx context.Context, glob string) error {
	marker := []byte(g.started)
	for {
		files, err := filepath.Glob(glob)
		if err != nil {
			return fmt.Errorf("record %s: %w", glob, err)
		}
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil && bytes.Contains(data, marker) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no record matching %s ever held the gated command: %w", glob, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
