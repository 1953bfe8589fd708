package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/localsock"
)

// TestDemo runs `conductor-bridge demo` for a few seconds against a real
// SSE client: a plausible session streams, a message sent to the agent is
// answered, and Ctrl-C removes the throwaway home.
func TestDemo(t *testing.T) {
	port, _ := freePort()
	cmd := exec.Command(binary, "demo", "--headless", "--speed", "20", "--seed", "7", "--port", strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=disabled:")
	out, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := map[string]string{}
	sc := bufio.NewScanner(out)
	for sc.Scan() && !strings.HasPrefix(sc.Text(), "Ctrl-C") {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok && len(strings.Fields(v)) > 0 {
			lines[k] = strings.Fields(v)[0]
			if k == "CLI" {
				lines[k] = strings.TrimSpace(v)
			}
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	home, base := lines["home"], lines["API"]
	if home == "" || base != "http://127.0.0.1:"+strconv.Itoa(port) || !strings.Contains(lines["viewer"], "/open/") {
		t.Fatalf("demo printed %v\n%s", lines, stderr.String())
	}
	p := &bridgeProc{t: t, cmd: cmd, base: base, home: home, state: filepath.Join(home, "state")}
	token := p.token()
	if sock, _ := localsock.Path(p.stateDir()); lines["socket"] != sock {
		t.Errorf("demo's socket %q, want %q", lines["socket"], sock)
	}
	list, err := listWorkspaces(context.Background(), p.cl(), token)
	if err != nil || len(list) != 3 {
		t.Fatalf("workspaces: %v %v", list, err)
	}
	var tokyo apiWorkspace
	for _, w := range list {
		if w.Name == "tokyo" {
			tokyo = w
		}
	}
	if !tokyo.Paired || tokyo.Source != "conductor-db" || tokyo.Branch != "demo/tokyo" {
		t.Errorf("tokyo: %+v", tokyo)
	}

	// A plausible session: every kind of event, ids increasing, a turn with cost.
	c := openStream(t, p, tokyo.ID, 0)
	defer c.cancel()
	seen := map[string]int{}
	var failed, cost bool
	var last int64
	evs := c.until(t, 60*time.Second, func(evs []event.Event) bool {
		if len(evs) == 0 {
			return false
		}
		for _, e := range evs[len(evs)-1:] {
			if e.ID <= last {
				t.Fatalf("id %d after %d", e.ID, last)
			}
			last = e.ID
			seen[e.Type]++
			failed = failed || (e.Type == event.ToolResult && e.IsError)
			cost = cost || (e.Type == event.TurnComplete && e.CostUSD > 0 && e.Usage.OutputTokens > 0)
			if e.Type == event.Status {
				seen["status:"+e.State]++
			}
		}
		return seen[event.TurnComplete] >= 3 && seen["status:needs_input"] > 0
	})
	for _, typ := range []string{event.User, event.Assistant, event.Thinking, event.ToolUse, event.ToolResult, event.TurnComplete, event.Pairing, "status:working", "status:idle", "status:needs_input"} {
		if seen[typ] == 0 {
			t.Errorf("no %s event in %d", typ, len(evs))
		}
	}
	if !failed || !cost {
		t.Errorf("a failing tool result: %v; a turn with cost: %v", failed, cost)
	}

	// A message is picked up and answered, as a real agent would.
	cfg := config{Addr: strings.TrimPrefix(base, "http://")}
	cfg.StateDir = p.stateDir()
	var res struct{ ID string }
	if err := apiCall(context.Background(), cfg, http.MethodPost, "/workspace/"+tokyo.ID+"/session/messages",
		map[string]string{"message": "please check the mobile view"}, &res); err != nil {
		t.Fatal(err)
	}
	var delivered bool
	evs = append(evs, c.until(t, 60*time.Second, func(evs []event.Event) bool {
		if len(evs) == 0 {
			return false
		}
		e := evs[len(evs)-1]
		delivered = delivered || (e.Type == event.User && e.MessageID == res.ID && e.Content == "please check the mobile view")
		return delivered && e.Type == event.Assistant && strings.Contains(e.Content, "please check the mobile view")
	})...)

	// A message handed over at a turn's end goes on with that turn: the
	// stream's turns are still the turns usage counts.
	evs = append(evs, demoWaitingMessage(t, c, cfg, tokyo.ID)...)
	var session string
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			session = e.SessionID
		}
	}
	demoTurnsMatch(t, c, evs, cfg, session)

	demoCLI(t, lines["CLI"], strings.TrimPrefix(base, "http://"))

	// Ctrl-C: the demo stops and its home is gone.
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the demo did not stop on Ctrl-C")
	}
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("the demo's home %s is still there", home)
	}
}
