package opencodetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"conductorbridge/testkit/agenttest"
)

// Run is one finished `opencode run`.
type Run struct {
	Session string   // the session id its JSON events name
	Events  []string // its stdout, one JSON event per line
	Stderr  string
	// Wall and CPU are how long it took and the processor time it and
	// the children it waited for used: on a busy machine the first is
	// many times the second.
	Wall, CPU time.Duration
}

// Run runs `opencode run --format json --auto [args…]` in the work
// folder with prompt on stdin, and waits for it.
func (h *Home) Run(ctx context.Context, bin, prompt string, args ...string) (Run, error) {
	argv := append([]string{"run", "--format", "json", "--auto"}, args...)
	cmd := agenttest.Command(ctx, bin, h.Work, h.Environ(), argv)
	cmd.Stdin = strings.NewReader(prompt)
	began := time.Now()
	stdout, stderr, err := agenttest.Output(cmd)
	r := Run{Stderr: string(stderr), Wall: time.Since(began)}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = ps.UserTime() + ps.SystemTime()
	}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Text()
		r.Events = append(r.Events, line)
		var ev struct {
			SessionID string `json:"sessionID"`
		}
		if r.Session == "" && json.Unmarshal([]byte(line), &ev) == nil {
			r.Session = ev.SessionID
		}
	}
	if err != nil {
		return r, fmt.Errorf("opencode run: %w", err)
	}
	return r, nil
}
