//go:build linux

package dbustest_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/dbustest"
	"conductorbridge/testkit/logtest"
)

// childEnv selects a child mode when this test binary re-executes itself.
// Subprocesses are needed because systray.Run works once per process and
// godbus caches dbus.SessionBus() (and thus the bus address) per process.
const childEnv = "DBUSTEST_CHILD"

func TestMain(m *testing.M) {
	switch mode := os.Getenv(childEnv); mode {
	case "":
		os.Exit(m.Run())
	case "tray":
		runTrayChild()
	case "notify":
		runNotifyChild()
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%q\n", childEnv, mode)
		os.Exit(2)
	}
	os.Exit(0)
}

// child is this test binary running in a child mode on a private bus.
type child struct {
	lines  chan string // stdout, line by line; closed at EOF
	done   chan struct{}
	err    error // exit status, valid after done is closed
	stderr logtest.Buffer
}

func startChild(t *testing.T, bus *dbustest.Bus, mode string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// fyne.io/systray v1.12.2 has data races of its own (menuVersion is
	// read and written under different locks), so a -race child would exit
	// 66 for reasons outside this repo. Reports still go to stderr.
	cmd.Env = append(bus.Environ(), childEnv+"="+mode, "GORACE="+os.Getenv("GORACE")+" exitcode=0")
	c := &child{lines: make(chan string, 100), done: make(chan struct{})}
	cmd.Stderr = &c.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
		c.err = cmd.Wait() // only after all reads, as os/exec requires
		close(c.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-c.done
		switch stderr := c.stderr.String(); {
		case t.Failed():
			t.Logf("child %q stderr:\n%s", mode, stderr)
		case strings.Contains(stderr, "WARNING: DATA RACE"):
			t.Logf("child %q reported data races (ignored; see GORACE above)", mode)
		}
	})
	return c
}

// waitLine consumes stdout until a line equal to want appears.
func (c *child) waitLine(ctx context.Context, want string) error {
	var seen []string
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return fmt.Errorf("child exited before printing %q; printed %q", want, seen)
			}
			if line == want {
				return nil
			}
			seen = append(seen, line)
		case <-ctx.Done():
			return fmt.Errorf("waiting for %q: %w; printed %q", want, ctx.Err(), seen)
		}
	}
}

// wait waits for the child to exit and returns its exit error.
func (c *child) wait(ctx context.Context) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
