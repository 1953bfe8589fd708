package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"conductorbridge/bridge/auth"
)

// benchChild is a real bridge process (`serve --headless`) on a throwaway
// home, so that its CPU time, context switches, memory and descriptors
// are its own and not the benchmark's.
type benchChild struct {
	cmd     *exec.Cmd
	cl      *bridgeClient // its socket file, as the CLI reaches a bridge
	state   string
	started time.Time
	peakFDs atomic.Int64
	peakRSS atomic.Int64 // KB, sampled
	stop    chan struct{}
	sampled sync.WaitGroup
}

// startChild starts exe serving home on a free port, its state in
// home/bridge-state, and samples its descriptors and memory until close.
// extra are more flags for serve.
func startChild(ctx context.Context, exe, home string, extra ...string) (*benchChild, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := &benchChild{state: filepath.Join(home, "bridge-state"), stop: make(chan struct{})}
	c.cl = newClient(c.state)
	args := append([]string{"serve", "--headless", "--home", home, "--addr", addr, "--log-level", "warn", "--state-dir", c.state}, extra...)
	c.cmd = exec.CommandContext(ctx, exe, args...)
	c.cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR=") // the fake home's own ~/.claude
	c.cmd.Stderr = os.Stderr
	c.started = time.Now()
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the bridge: %w", err)
	}
	c.sampled.Go(c.sample)
	return c, nil
}

// startStreaming starts exe serving home (startChild) and waits until n
// workspaces stream (waitWorkspaces, within limit): the child, to close,
// and the workspaces' ids. On an error the child is stopped.
func startStreaming(ctx context.Context, exe, home string, n int, limit time.Duration, extra ...string) (*benchChild, []string, error) {
	c, err := startChild(ctx, exe, home, extra...)
	if err != nil {
		return nil, nil, err
	}
	ids, err := waitWorkspaces(ctx, c.cl, c.token, n, limit)
	if err != nil {
		c.close()
		return nil, nil, err
	}
	return c, ids, nil
}

func (c *benchChild) pid() int { return c.cmd.Process.Pid }

func (c *benchChild) token() string {
	t, _ := auth.Read(filepath.Join(c.state, tokenFile))
	return t
}

// sample keeps the peaks of open descriptors and resident memory, every
// 20 ms: a catch-up's peak lasts only as long as a batch.
func (c *benchChild) sample() {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if n := openFDs(c.pid()); int64(n) > c.peakFDs.Load() {
			c.peakFDs.Store(int64(n))
		}
		if runtime.GOOS == "linux" { // elsewhere residentKB forks ps: not every 20 ms
			if kb := residentKB(c.pid()); kb > c.peakRSS.Load() {
				c.peakRSS.Store(kb)
			}
		}
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
	}
}

// close stops the bridge as a signal would, and waits for it.
func (c *benchChild) close() error {
	close(c.stop)
	c.sampled.Wait()
	c.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil // ended by the signal
		}
		return err
	case <-time.After(10 * time.Second):
		c.cmd.Process.Kill()
		return <-done
	}
}
