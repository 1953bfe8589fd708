package agenttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Gate holds a shell command an agent runs, mid-turn, until the test
// opens it: Command is what the model asks the agent to run, Started
// waits until the agent runs it, Open lets it through. While it waits,
// what is on disk was written during the turn.
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
