package codextest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"conductorbridge/testkit/agenttest"
)

// AppServer is `codex app-server` driven over stdio the way a UI drives
// it (0.169's v2 protocol; 0.47's v1 through the Legacy methods): JSON-RPC 2.0, one message a line. Unlike `codex exec`, which
// never asks, it sends the client an approval request
// (item/commandExecution/requestApproval, …) whenever the approval policy
// wants one, and waits for the answer — so a test can be the person at
// the keyboard.
type AppServer struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu      sync.Mutex
	next    int64
	waiting map[int64]chan Message
	got     []Message     // requests and notifications from Codex, in order
	taken   []bool        // got[i] was returned by a Wait
	changed chan struct{} // closed and replaced when got grows or the process ends
	done    bool
	stderr  []byte
}

// Message is one JSON-RPC message from Codex: a request (ID and Method
// set), a notification (Method only) or a response (ID with Result or
// Error).
type Message struct {
	ID     *int64          `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// StartAppServer starts `codex app-server` with o's home, environment and
// workspace (o.Prompt, o.Resume and o.Args are not used) and initializes
// the connection. It is stopped when ctx ends or Close is called.
func StartAppServer(ctx context.Context, o Options) (*AppServer, error) {
	o, err := o.prepare()
	if err != nil {
		return nil, err
	}
	cmd := agenttest.Command(ctx, o.Bin, o.Dir, o.Environ(), []string{"app-server"})
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server stdin: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("codex app-server stdout: %w", err)
	}
	s := &AppServer{cmd: cmd, stdin: stdin, waiting: make(map[int64]chan Message), changed: make(chan struct{})}
	cmd.Stderr = (*stderrTail)(s)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	go s.read(stdout)
	// experimentalApi: a turn's collaboration mode (Plan mode, where
	// Codex offers the model its request_user_input question tool) is an
	// experimental field.
	if _, err := s.Call(ctx, "initialize", map[string]any{"clientInfo": map[string]any{"name": "codextest", "version": "1"},
		"capabilities": map[string]any{"experimentalApi": true}}); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "initialized"}); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// stderrTail keeps the end of Codex's stderr for error messages.
type stderrTail AppServer

func (w *stderrTail) Write(p []byte) (int, error) {
	s := (*AppServer)(w)
	s.mu.Lock()
	s.stderr = append(s.stderr, p...)
	if len(s.stderr) > 8000 {
		s.stderr = s.stderr[len(s.stderr)-8000:]
	}
	s.mu.Unlock()
	return len(p), nil
}

// Stderr is the end of what Codex wrote to stderr.
func (s *AppServer) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.stderr)
}

func (s *AppServer) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m Message
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		s.mu.Lock()
		if m.ID != nil && m.Method == "" {
			if ch := s.waiting[*m.ID]; ch != nil {
				delete(s.waiting, *m.ID)
				ch <- m
			}
		} else {
			s.got = append(s.got, m)
			s.taken = append(s.taken, false)
			close(s.changed)
			s.changed = make(chan struct{})
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	s.done = true
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

func (s *AppServer) send(v any) error {
	if err := agenttest.WriteLine(s.stdin, v); err != nil {
		return fmt.Errorf("codex app-server: %w", err)
	}
	return nil
}

// Call sends a request and waits for its result.
func (s *AppServer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan Message, 1)
	s.mu.Lock()
	s.next++
	id := s.next
	s.waiting[id] = ch
	s.mu.Unlock()
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if len(m.Error) > 0 {
			return nil, fmt.Errorf("codex app-server %s: %s", method, m.Error)
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("codex app-server %s: %w\nstderr:\n%s", method, ctx.Err(), s.Stderr())
	}
}

// Reply answers a request Codex sent (an approval) with result.
func (s *AppServer) Reply(req Message, result any) error {
	if req.ID == nil {
		return errors.New("codex app-server: reply to a notification")
	}
	return s.send(map[string]any{"jsonrpc": "2.0", "id": *req.ID, "result": result})
}

// Wait returns the first request or notification named method that no
// Wait returned before, waiting for it until ctx ends or Codex exits.
func (s *AppServer) Wait(ctx context.Context, method string) (Message, error) {
	for {
		s.mu.Lock()
		for i, m := range s.got {
			if !s.taken[i] && m.Method == method {
				s.taken[i] = true
				s.mu.Unlock()
				return m, nil
			}
		}
		changed, done := s.changed, s.done
		s.mu.Unlock()
		if done {
			return Message{}, fmt.Errorf("codex app-server exited before %s\nstderr:\n%s", method, s.Stderr())
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("no %s from codex app-server: %w\nstderr:\n%s", method, ctx.Err(), s.Stderr())
		}
	}
}

// Messages returns every request and notification Codex sent so far, in
// order.
func (s *AppServer) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.got...)
}

// Close ends the app server and waits for it.
func (s *AppServer) Close() {
	s.stdin.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Cancel() // the whole process group (agenttest.Command)
		<-done
	}
}

// StartThread starts a thread in dir with an approval policy ("on-request",
// "never", …) and sandbox ("read-only", …) and returns its id.
func (s *AppServer) StartThread(ctx context.Context, dir, approval, sandbox string) (string, error) {
	res, err := s.Call(ctx, "thread/start", map[string]any{"cwd": dir, "approvalPolicy": approval, "sandbox": sandbox})
	if err != nil {
		return "", err
	}
	var out struct {
		Thread struct {
			ID string `json:"id"`
		} `json:"thread"`
	}
	if err := json.Unmarshal(res, &out); err != nil || out.Thread.ID == "" {
		return "", fmt.Errorf("codex app-server thread/start answered %s", res)
	}
	return out.Thread.ID, nil
}

// StartTurn sends the person's prompt to a thread.
func (s *AppServer) StartTurn(ctx context.Context, thread, prompt string) error {
	return s.startTurn(ctx, thread, prompt, nil)
}

// StartPlanTurn sends a prompt in Plan mode, with model: the mode in which
// 0.169 lets the model ask the person questions (request_user_input).
func (s *AppServer) StartPlanTurn(ctx context.Context, thread, prompt, model string) error {
	return s.startTurn(ctx, thread, prompt, map[string]any{"collaborationMode": map[string]any{
		"mode": "plan", "settings": map[string]any{"model": model, "reasoning_effort": nil, "developer_instructions": nil}}})
}

func (s *AppServer) startTurn(ctx context.Context, thread, prompt string, extra map[string]any) error {
	params := map[string]any{"threadId": thread, "input": []map[string]any{{"type": "text", "text": prompt}}}
	for k, v := range extra {
		params[k] = v
	}
	_, err := s.Call(ctx, "turn/start", params)
	return err
}

// StartLegacyThread is StartThread for 0.47's app server (its v1
// protocol): newConversation, then addConversationListener so that its
// events and approval requests (execCommandApproval) come to this client.
// It returns the conversation (thread) id.
func (s *AppServer) StartLegacyThread(ctx context.Context, dir, approval, sandbox string) (string, error) {
	res, err := s.Call(ctx, "newConversation", map[string]any{"cwd": dir, "approvalPolicy": approval, "sandbox": sandbox})
	if err != nil {
		return "", err
	}
	var out struct {
		ConversationID string `json:"conversationId"`
	}
	if err := json.Unmarshal(res, &out); err != nil || out.ConversationID == "" {
		return "", fmt.Errorf("codex app-server newConversation answered %s", res)
	}
	if _, err := s.Call(ctx, "addConversationListener", map[string]any{"conversationId": out.ConversationID}); err != nil {
		return "", err
	}
	return out.ConversationID, nil
}

// StartLegacyTurn is StartTurn for 0.47's app server (sendUserMessage).
func (s *AppServer) StartLegacyTurn(ctx context.Context, thread, prompt string) error {
	_, err := s.Call(ctx, "sendUserMessage", map[string]any{"conversationId": thread,
		"items": []map[string]any{{"type": "text", "data": map[string]any{"text": prompt}}}})
	return err
}
