package claudetest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"conductorbridge/testkit/agenttest"
)

// Event is one line Claude Code printed in stream-json output.
type Event struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	// Raw is the whole line.
	Raw json.RawMessage `json:"-"`
}

// Session is a long-lived `claude -p --input-format stream-json` process,
// the way Conductor runs Claude Code: user messages go in on stdin, one
// JSON event per line comes out, and the process stays up between turns.
type Session struct {
	opts  Options
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when the process has exited
	err   error         // Wait's result, valid after done

	mu      sync.Mutex
	events  []Event
	cursor  int           // events before it were consumed by Next/WaitFor
	changed chan struct{} // closed and replaced on every new event and at exit
	stderr  strings.Builder
}

// Start launches a long-lived session. Send user messages with Send and
// end it with Close.
func Start(ctx context.Context, opts Options) (*Session, error) {
	o, err := opts.prepare()
	if err != nil {
		return nil, err
	}
	args := []string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"}
	cmd := o.command(ctx, append(args, o.commonArgs()...))
	s := &Session{opts: o, cmd: cmd, done: make(chan struct{}), changed: make(chan struct{})}
	if s.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	cmd.Stderr = &lockedWriter{s: s}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start claude: %w", err)
	}
	go s.read(stdout)
	return s, nil
}

func (s *Session) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	// Events embed whole tool results; allow multi-MB lines.
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var ev Event
		if json.Unmarshal(line, &ev) != nil {
			continue // stray non-JSON output is not an event
		}
		ev.Raw = line
		s.mu.Lock()
		s.events = append(s.events, ev)
		s.broadcast()
		s.mu.Unlock()
	}
	s.err = s.cmd.Wait()
	close(s.done)
	s.mu.Lock()
	s.broadcast()
	s.mu.Unlock()
}

// broadcast wakes waiters; s.mu must be held.
func (s *Session) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Send writes one user message to the session.
func (s *Session) Send(text string) error {
	msg := map[string]any{
		"type":               "user",
		"session_id":         "",
		"parent_tool_use_id": nil,
		"message": map[string]any{
			"role":    "user",
			"content": []map[string]any{{"type": "text", "text": text}},
		},
	}
	if err := agenttest.WriteLine(s.stdin, msg); err != nil {
		return fmt.Errorf("send user message: %w", err)
	}
	return nil
}

// WaitFor consumes events until one matches and returns it. It fails when
// ctx ends or the process exits first.
func (s *Session) WaitFor(ctx context.Context, match func(Event) bool) (Event, error) {
	for {
		s.mu.Lock()
		for s.cursor < len(s.events) {
			ev := s.events[s.cursor]
			s.cursor++
			if match(ev) {
				s.mu.Unlock()
				return ev, nil
			}
		}
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-s.done:
			// Drain what the reader stored before exiting.
			s.mu.Lock()
			pending := s.cursor < len(s.events)
			s.mu.Unlock()
			if pending {
				continue
			}
			return Event{}, fmt.Errorf("claude exited (%v) before the awaited event; stderr: %s", s.err, agenttest.Tail([]byte(s.Stderr()), 2000))
		case <-ctx.Done():
			return Event{}, fmt.Errorf("waiting for claude event: %w", ctx.Err())
		case <-changed:
		}
	}
}

// WaitResult waits for the next turn's "result" event.
func (s *Session) WaitResult(ctx context.Context) (ResultMessage, error) {
	ev, err := s.WaitFor(ctx, func(e Event) bool { return e.Type == "result" })
	if err != nil {
		return ResultMessage{}, err
	}
	var m ResultMessage
	if err := json.Unmarshal(ev.Raw, &m); err != nil {
		return m, fmt.Errorf("decode result: %w", err)
	}
	return m, nil
}

// Events returns every event printed so far.
func (s *Session) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.events...)
}

// SessionID is the session's id: the one passed with --session-id, else
// the first one Claude Code reported.
func (s *Session) SessionID() string {
	if s.opts.SessionID != "" && s.opts.Resume == "" && !s.opts.Continue {
		return s.opts.SessionID
	}
	for _, ev := range s.Events() {
		if ev.SessionID != "" {
			return ev.SessionID
		}
	}
	return s.opts.Resume
}

// TranscriptPath is where this session's transcript is (or will be).
func (s *Session) TranscriptPath() (string, error) {
	id := s.SessionID()
	if id == "" {
		return "", errors.New("claudetest: session id not known yet")
	}
	return TranscriptPath(s.opts.Home, s.opts.Dir, id)
}

// Pid is the claude process id.
func (s *Session) Pid() int { return s.cmd.Process.Pid }

// Stderr is everything claude wrote to stderr so far.
func (s *Session) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// CloseInput closes stdin: claude finishes the current turn and exits.
func (s *Session) CloseInput() error {
	if err := s.stdin.Close(); err != nil {
		return fmt.Errorf("close claude stdin: %w", err)
	}
	return nil
}

// Close closes stdin and waits up to 10 s for a clean exit, then kills
// the process group. It returns the exit error, if any.
func (s *Session) Close() error {
	_ = s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Cancel()
		<-s.done
	}
	return s.err
}

// Done is closed when the process has exited.
func (s *Session) Done() <-chan struct{} { return s.done }

type lockedWriter struct{ s *Session }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.stderr.Write(p)
}
