package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/engine"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

// fakeEngine serves fixed workspaces with real topics.
type fakeEngine struct {
	list   []engine.Info
	topics map[string]*stream.Topic
}

func (f *fakeEngine) Workspaces() []engine.Info { return f.list }
func (f *fakeEngine) Workspace(id string) (engine.Info, bool) {
	for _, in := range f.list {
		if in.ID == id {
			return in, true
		}
	}
	return engine.Info{}, false
}
func (f *fakeEngine) Topic(id string) (*stream.Topic, bool) { t, ok := f.topics[id]; return t, ok }
func (f *fakeEngine) Ready() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func newServer(t *testing.T) (*httptest.Server, *stream.Topic) {
	t.Helper()
	hub := stream.NewHub("", 0)
	topic, _ := hub.Topic("ws1")
	eng := &fakeEngine{
		list: []engine.Info{{Workspace: discover.Workspace{ID: "ws1", Name: "tokyo", Repo: "app", Branch: "main",
			Directory: "/w/tokyo", PID: 42, Source: discover.SourceConductorDB}, Active: true, Status: "working", SessionID: "s1"}},
		topics: map[string]*stream.Topic{"ws1": topic},
	}
	s := &Server{Engine: eng, Version: "test", Started: time.Now(), Origins: []string{"chrome-extension://good"},
		SSE: stream.SSE{Heartbeat: 50 * time.Millisecond}}
	ts := httptest.NewServer(s.Handler())
	s.Port = ts.Listener.Addr().(*net.TCPAddr).Port
	t.Cleanup(ts.Close)
	return ts, topic
}

func get(t *testing.T, ts *httptest.Server, path string, hdr map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp, body
}

func TestWorkspacesAndHealth(t *testing.T) {
	ts, _ := newServer(t)
	resp, body := get(t, ts, "/api/workspaces", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d type %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ws := body["workspaces"].([]any)[0].(map[string]any)
	for k, want := range map[string]any{"id": "ws1", "name": "tokyo", "branch": "main", "directory": "/w/tokyo",
		"pid": 42.0, "active": true, "repo": "app", "status": "working", "session_id": "s1",
		"stream": "/workspace/ws1/session/stream"} {
		if ws[k] != want {
			t.Errorf("%s = %v, want %v", k, ws[k], want)
		}
	}
	_, h := get(t, ts, "/health", nil)
	if h["status"] != "healthy" || h["version"] != "test" || h["workspaces"] != 1.0 {
		t.Errorf("health = %v", h)
	}
}

func TestUnknownWorkspaceIs404JSON(t *testing.T) {
	ts, _ := newServer(t)
	for _, p := range []string{"/workspace/nope/session/stream", "/api/workspaces/nope", "/nothing/here"} {
		resp, body := get(t, ts, p, nil)
		if resp.StatusCode != 404 || body["error"] == nil {
			t.Errorf("%s: %d %v", p, resp.StatusCode, body)
		}
	}
}

func TestGuardRefusesForeignHostAndOrigin(t *testing.T) {
	ts, _ := newServer(t)
	port := strconv.Itoa(ts.Listener.Addr().(*net.TCPAddr).Port)
	tests := []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"plain", nil, 200},
		{"localhost", map[string]string{"Host": "localhost:" + port}, 200},
		{"dns rebinding", map[string]string{"Host": "evil.example:" + port}, 403},
		{"rebinding without port", map[string]string{"Host": "evil.example"}, 403},
		{"other port", map[string]string{"Host": "127.0.0.1:1"}, 403},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, 403},
		{"null origin", map[string]string{"Origin": "null"}, 403},
		{"allowed origin", map[string]string{"Origin": "chrome-extension://good"}, 200},
	}
	for _, tt := range tests {
		for _, p := range []string{"/api/workspaces", "/workspace/ws1/session/stream?after=999"} {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+p, nil)
			for k, v := range tt.hdr {
				if k == "Host" {
					req.Host = v
				} else {
					req.Header.Set(k, v)
				}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.want {
				t.Errorf("%s %s: %d, want %d", tt.name, p, resp.StatusCode, tt.want)
			}
			resp.Body.Close()
			cancel()
		}
	}
}

// readSSE reads n events from a stream request.
func readSSE(t *testing.T, ts *httptest.Server, path string, hdr map[string]string, n int) []stream.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+path, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var got []stream.Message
	stream.Read(bufio.NewReader(resp.Body), func(m stream.Message) error {
		got = append(got, m)
		if len(got) == n {
			return context.Canceled
		}
		return nil
	})
	return got
}

func TestStreamReplaysFromCursor(t *testing.T) {
	ts, topic := newServer(t)
	for i := 0; i < 5; i++ {
		topic.Publish([]event.Event{{Type: event.Assistant, Content: "m" + strconv.Itoa(i)}}, nil)
	}
	tests := []struct {
		name   string
		path   string
		hdr    map[string]string
		wantID int64
	}{
		{"after", "/workspace/ws1/session/stream?after=2", nil, 3},
		{"last-event-id", "/workspace/ws1/session/stream", map[string]string{"Last-Event-ID": "3"}, 4},
		{"reconnect keeps old after in URL: header wins", "/workspace/ws1/session/stream?after=1", map[string]string{"Last-Event-ID": "4"}, 5},
	}
	for _, tt := range tests {
		got := readSSE(t, ts, tt.path, tt.hdr, 1)
		if len(got) != 1 || got[0].ID != tt.wantID || got[0].Event != "assistant" {
			t.Errorf("%s: %+v", tt.name, got)
			continue
		}
		var e event.Event
		if err := json.Unmarshal(got[0].Data, &e); err != nil || e.ID != tt.wantID || !strings.HasPrefix(e.Content, "m") {
			t.Errorf("%s: payload %s", tt.name, got[0].Data)
		}
	}
	// Live: an event published after connecting arrives.
	done := make(chan []stream.Message)
	go func() { done <- readSSE(t, ts, "/workspace/ws1/session/stream?after=5", nil, 1) }()
	time.Sleep(100 * time.Millisecond)
	topic.Publish([]event.Event{{Type: event.ToolUse, Name: "Bash", Input: "ls"}}, nil)
	if got := <-done; len(got) != 1 || got[0].ID != 6 || got[0].Event != "tool_use" {
		t.Errorf("live: %+v", got)
	}
}

func TestStreamHeartbeat(t *testing.T) {
	ts, _ := newServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/workspace/ws1/session/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == ": ping" {
			return
		}
	}
	t.Fatal("no heartbeat on an idle stream")
}
