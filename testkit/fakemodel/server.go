// Package fakemodel is a scriptable stand-in for the model APIs the agents
// the bridge reads talk to, good enough to drive the real binaries in tests
// (Claude Code, Codex, OpenCode, the Cursor SDK). One server speaks four
// APIs, each on its own paths, from one script:
//
//	Anthropic Messages       POST /v1/messages (+ /v1/messages/count_tokens)  Claude Code: ANTHROPIC_BASE_URL=URL()
//	OpenAI Responses         POST /responses, /v1/responses                  Codex: a model provider with base_url=URL()
//	OpenAI Chat Completions  POST /chat/completions, /v1/chat/completions    OpenAI-compatible clients: baseURL=URL()+"/v1"
//	model list               GET /models, /v1/models                         answered from Server.Models
//	Cursor's backend         /auth/…, /agent.v1.…, /aiserver.v1.…            Cursor SDK: CURSOR_BACKEND_URL=URL() (cursor.go)
//
// A script is a queue of Turns; each main request (Classify says which are)
// takes the next one, and a request on the side gets SideReply's text. A
// Codex command still running when its call yields is waited on, as a
// model does, by polling it (KindPoll): the script goes on once it ends. A
// Turn is Blocks, or Build to make them from the request, each block
// rendered in the request's API:
//
//	block          Messages            Responses           Chat
//	Text           text                message             content
//	Thinking       thinking            reasoning summary   reasoning_content
//	ToolUse        tool_use            function_call       tool_calls
//	CustomTool     tool_use {input}    custom_tool_call    tool_calls {input}
//	WebSearch      (left out)          web_search_call     (left out)
//
// Usage is given once in the Messages API's convention and converted for
// the OpenAI APIs. Answers stream as SSE when the request asks for it, in
// deltas of ChunkRunes with ChunkDelay between them. Every request is
// recorded (Requests, MainRequests, WaitRequest) with its API, its decoded
// body and API-neutral readers (UserTexts, ToolOutputs, ContainsText,
// Contains, ToolNames, SystemText), so tests can assert what reached the
// model.
package fakemodel

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

// maxBody bounds a request body; agents send the whole conversation each
// turn, which stays well under this even with long tool outputs.
const maxBody = 64 << 20

// Server is a fake model API. Configure the exported fields before
// Start; everything else is safe for concurrent use.
type Server struct {
	// Fallback is served to main requests once the script is exhausted.
	Fallback Turn
	// SideReply answers side and warm-up requests (default DefaultSideReply).
	SideReply func(Request) string
	// Models is the body answering GET …/models (default {"models":[],"data":[]}).
	Models json.RawMessage
	// Classifier decides which requests consume the script (default Classify).
	Classifier func(Request) Kind
	// WarmupHold, when set, keeps the answers to warm-up requests (Claude
	// Code 2.0's "Warmup") from starting until it is closed: a test can
	// have them come after the turn they were sent in has ended.
	WarmupHold <-chan struct{}

	mu       sync.Mutex
	script   []Turn
	requests []Request
	changed  chan struct{} // closed and replaced whenever a request is recorded

	srv    *http.Server
	ln     net.Listener
	cancel context.CancelFunc
	url    string
}

// New returns an unstarted server that will answer main-conversation
// requests with script, in order.
func New(script ...Turn) *Server {
	return &Server{
		Fallback:   DefaultFallback(),
		SideReply:  DefaultSideReply,
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
		t.Fatalf("fakemodel: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start listens on a random loopback port and returns the base URL (see
// the package doc for where each agent wants it).
func (s *Server) Start() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("fakemodel listen: %w", err)
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

// MainRequests returns the requests that consumed (or would have consumed)
// the script.
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
			return Request{}, fmt.Errorf("fakemodel: no matching request: %w", ctx.Err())
		case <-changed:
		}
	}
}

// record stores r, gives it a sequence number and, for main requests,
// takes the turn to serve while still holding the lock so concurrent
// requests never get the same turn.
func (s *Server) record(r Request) (Request, Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r.Seq = len(s.requests) + 1
	var turn Turn
	switch r.Kind {
	case KindMain:
		if len(s.script) > 0 {
			turn, s.script = s.script[0], s.script[1:]
		} else {
			turn = s.Fallback
		}
	case KindSide, KindWarmup:
		turn = Reply(Text(s.SideReply(r)))
		if r.Kind == KindWarmup {
			turn.Hold = s.WarmupHold
		}
	case KindPoll:
		turn = pollTurn(r)
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
		API:      apiOf(hr.Method, hr.URL.Path),
	}
	if isCursor(hr) {
		r.API = Cursor
	}
	r.decode()
	r.Kind = s.Classifier(r)
	r, turn := s.record(r)

	id := fmt.Sprintf("req_fake%04d", r.Seq)
	w.Header().Set("Request-Id", id)   // Claude Code records it as requestId
	w.Header().Set("X-Request-Id", id) // OpenAI's name
	if r.API == Cursor {
		s.serveCursor(w, hr, r, turn)
		return
	}
	switch r.Kind {
	case KindModels:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.Models)
		return
	case KindCountTokens:
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"input_tokens":%d}`, len(raw)/4+1)
		return
	}
	if r.API == "" || r.Kind == KindOther {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "{}")
		return
	}
	newAnswer(r, turn).write(hr.Context(), w, r)
}
