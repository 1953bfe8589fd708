package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

func newServer(t *testing.T) (*env, *stream.Topic) {
	e := newEnv(t)
	return e, e.topics["ws1"]
}

// get sends a GET with the API token unless hdr sets Authorization ("" for none).
func get(t *testing.T, e *env, path string, hdr map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	r := req{path: path, bearer: e.token.Value(), hdr: map[string]string{}}
	for k, v := range hdr {
		switch k {
		case "Host":
			r.host = v
		case "Authorization":
			r.bearer = v
		default:
			r.hdr[k] = v
		}
	}
	resp := e.send(t, r)
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
		"stream": "/workspace/ws1/session/stream", "paired": true} {
		if ws[k] != want {
			t.Errorf("%s = %v, want %v", k, ws[k], want)
		}
	}
	_, h := get(t, ts, "/health", nil)
	if h["status"] != "healthy" || h["version"] != "test" || h["workspaces"] != 2.0 {
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
	e, _ := newServer(t)
	ts, port := e.ts, e.port
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
			req.Header.Set("Authorization", "Bearer "+e.token.Value())
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
func readSSE(t *testing.T, e *env, path string, hdr map[string]string, n int) []stream.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.ts.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+e.token.Value())
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
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.ts.URL+"/workspace/ws1/session/stream", nil)
	req.Header.Set("Authorization", "Bearer "+ts.token.Value())
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
