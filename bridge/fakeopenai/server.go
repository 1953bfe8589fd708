// Package fakeopenai is a scriptable stand-in for the OpenAI Responses API,
// good enough to drive the real Codex CLI in tests (like bridge/fakemodel
// for Anthropic): it streams SSE the way the real API does, plays a queue
// of scripted turns, answers the model list, and records every request so
// tests can assert what reached the model.
package fakeopenai

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// maxBody bounds a request body; Codex sends the whole conversation each
// turn, which stays well under this even with long tool outputs.
const maxBody = 64 << 20

// Server is a fake Responses API. Configure the exported fields before
// Start; everything else is safe for concurrent use.
type Server struct {
	// Fallback is served once the script is exhausted.
	Fallback Turn
	// Models is the body answering GET /models (default {"models":[],"data":[]}).
	Models json.RawMessage
	// Classifier decides which requests consume the script (default Classify).
	Classifier func(Request) Kind

	mu       sync.Mutex
	script   []Turn
	requests []Request
	changed  chan struct{} // closed and replaced whenever a request is recorded

	srv    *http.Server
	ln     net.Listener
	cancel context.CancelFunc
	url    string
}

// New returns an unstarted server that answers model calls with script,
// in order.
func New(script ...Turn) *Server {
	return &Server{
		Fallback:   DefaultFallback(),
		Models:     json.RawMessage(`{"models":[],"data":[]}`),
		Classifier: Classify,
		script:     append([]Turn(nil), script...),
		changed:    make(chan struct{}),
	}
}

// NewTest starts a server for the duration of test t.
func NewTest(t testing.TB, script ...Turn) *Server {
	t.Helper()
	s := New(script...)
	if _, err := s.Start(); err != nil {
		t.Fatalf("fakeopenai: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start listens on a random loopback port and returns the base URL to put
// in a model provider's base_url (it serves both /responses and
// /v1/responses).
func (s *Server) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("fakeopenai listen: %w", err)
	}
	// A base context lets Close cut short scripted delays in open streams,
	// which Shutdown alone would wait for.
	base, cancel := context.WithCancel(context.Background())
	s.ln, s.cancel = ln, cancel
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		BaseContext:       func(net.Listener) context.Context { return base },
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() { _ = s.srv.Serve(ln) }()
	return s.url, nil
}

// URL is the base URL, valid after Start.
func (s *Server) URL() string { return s.url }

// Close stops the server, aborting responses still streaming.
func (s *Server) Close() {
	if s.srv == nil {
		return
	}
	s.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		_ = s.srv.Close()
	}
}

// Push appends turns to the script, e.g. while a long-lived session runs.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, turns...)
}

// Remaining is the number of scripted turns not yet served.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MainRequests returns the model calls (the requests that consumed, or
// would have consumed, the script).
func (s *Server) MainRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == KindMain {
			out = append(out, r)
		}
	}
	return out
}

// WaitRequest returns the first request, already received or yet to come,
// for which match is true; filter on Seq to ignore old ones.
func (s *Server) WaitRequest(ctx context.Context, match func(Request) bool) (Request, error) {
	seen := 0
	for {
		s.mu.Lock()
		reqs, changed := s.requests[seen:], s.changed
		seen = len(s.requests)
		s.mu.Unlock()
		for _, r := range reqs {
			if match(r) {
				return r, nil
			}
		}
		select {
		case <-ctx.Done():
			return Request{}, fmt.Errorf("fakeopenai: no matching request: %w", ctx.Err())
		case <-changed:
		}
	}
}

// record stores r, gives it a sequence number and, for model calls, takes
// the turn to serve while still holding the lock so concurrent requests
// never get the same turn.
func (s *Server) record(r Request) (Request, Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.requests) + 1
	var turn Turn
	if r.Kind == KindMain {
		if len(s.script) > 0 {
			turn, s.script = s.script[0], s.script[1:]
		} else {
			turn = s.Fallback
		}
	}
	s.requests = append(s.requests, r)
	close(s.changed)
	s.changed = make(chan struct{})
	return r, turn
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(hr.Body, maxBody))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r := Request{
		Time:     time.Now(),
		Method:   hr.Method,
		Path:     hr.URL.Path,
		RawQuery: hr.URL.RawQuery,
		Header:   hr.Header.Clone(),
		Raw:      raw,
	}
	// A body that is not a Responses request leaves Body zero; it is
	// still recorded.
	_ = json.Unmarshal(raw, &r.Body)
	r.Kind = s.Classifier(r)
	r, turn := s.record(r)

	w.Header().Set("X-Request-Id", fmt.Sprintf("req_fake%04d", r.Seq))
	switch r.Kind {
	case KindModels:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.Models)
		return
	case KindOther:
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{}")
		return
	}
	rsp := newResponse(r, turn)
	if turn.Status != 0 {
		rsp.writeError(w)
		return
	}
	if !r.Body.Stream {
		rsp.writeJSON(w)
		return
	}
	// An error here means the client went away or the server is closing:
	// there is no one left to tell.
	_ = rsp.stream(hr.Context(), w)
}
