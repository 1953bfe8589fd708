package opencodetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"conductorbridge/testkit/agenttest"
)

// ACP is a running `opencode acp`, driven as Conductor drives it: JSON-RPC
// over its stdin and stdout (the Agent Client Protocol). A permission
// request is answered "once", as a person allowing it would.
type ACP struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan rpcReply
	done    chan struct{}
}

type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// StartACP starts `opencode acp` in the home's work folder and
// initializes it; ending ctx kills it.
func (h *Home) StartACP(ctx context.Context, bin string) (*ACP, error) {
	cmd := agenttest.Command(ctx, bin, h.Work, h.Environ(), []string{"acp"})
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start opencode acp: %w", err)
	}
	a := &ACP{cmd: cmd, stdin: stdin, waiting: map[int]chan rpcReply{}, done: make(chan struct{})}
	go a.read(stdout)
	if _, err := a.Call(ctx, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// PID is the process id of the opencode process (the npm launcher execs
// the binary in place).
func (a *ACP) PID() int { return a.cmd.Process.Pid }

func (a *ACP) read(r io.Reader) {
	defer close(a.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification (session/update)
		}
		if m.Method != "" { // the agent asks: a permission
			_ = a.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID,
				"result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "once"}}})
			continue
		}
		var rep rpcReply
		_ = json.Unmarshal(sc.Bytes(), &rep)
		a.mu.Lock()
		ch := a.waiting[*m.ID]
		delete(a.waiting, *m.ID)
		a.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
}

func (a *ACP) send(msg any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return agenttest.WriteLine(a.stdin, msg)
}

// Start sends a request and returns the channel its answer comes on.
func (a *ACP) Start(method string, params any) (<-chan rpcReply, error) {
	a.mu.Lock()
	a.nextID++
	id := a.nextID
	ch := make(chan rpcReply, 1)
	a.waiting[id] = ch
	a.mu.Unlock()
	return ch, a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

// Call sends a request and waits for its answer.
func (a *ACP) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch, err := a.Start(method, params)
	if err != nil {
		return nil, err
	}
	return a.Wait(ctx, method, ch)
}

// Wait waits for the answer on ch.
func (a *ACP) Wait(ctx context.Context, method string, ch <-chan rpcReply) (json.RawMessage, error) {
	select {
	case rep := <-ch:
		if rep.Error != nil {
			return nil, fmt.Errorf("acp %s: %s", method, rep.Error.Message)
		}
		return rep.Result, nil
	case <-a.done:
		return nil, fmt.Errorf("acp %s: opencode acp exited", method)
	case <-ctx.Done():
		return nil, fmt.Errorf("acp %s: %w", method, ctx.Err())
	}
}

// NewSession opens a session in the work folder, as Conductor does for a
// new tab, and returns the id the ACP server gives it.
func (a *ACP) NewSession(ctx context.Context, dir string) (string, error) {
	res, err := a.Call(ctx, "session/new", map[string]any{"cwd": dir, "mcpServers": []any{}})
	if err != nil {
		return "", err
	}
	var r struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.SessionID == "" {
		return "", fmt.Errorf("acp session/new: no sessionId in %s", res)
	}
	return r.SessionID, nil
}

// Prompt sends the person's prompt; its answer comes when the turn ends.
func (a *ACP) Prompt(session, text string) (<-chan rpcReply, error) {
	return a.Start("session/prompt", map[string]any{"sessionId": session,
		"prompt": []map[string]string{{"type": "text", "text": text}}})
}

// Close ends the process (its stdin first, as Conductor closing a tab).
func (a *ACP) Close() {
	_ = a.stdin.Close()
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-a.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = a.cmd.Wait()
}
