package opencodetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Run is one finished `opencode run`.
type Run struct {
	Session string   // the session id its JSON events name
	Events  []string // its stdout, one JSON event per line
	Stderr  string
}

// Run runs `opencode run --format json --auto [args…]` in the work
// folder with prompt on stdin, and waits for it.
func (h *Home) Run(ctx context.Context, bin, prompt string, args ...string) (Run, error) {
	argv := append([]string{"run", "--format", "json", "--auto"}, args...)
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Dir = h.Work
	cmd.Env = h.Environ()
	cmd.Stdin = strings.NewReader(prompt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	r := Run{Stderr: stderr.String()}
	sc := bufio.NewScanner(&stdout)
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
		return r, fmt.Errorf("opencode run: %w: %s", err, tail(r.Stderr))
	}
	return r, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return s
}
