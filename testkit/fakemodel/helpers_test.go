package fakemodel

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// sseEvent is one decoded server-sent event: its name (none on the Chat
// API, "[DONE]" for its last line) and its data.
type sseEvent struct {
	name string
	data map[string]any
}

// readSSE decodes a stream; a named event's data must carry its name as
// "type", as the Messages and Responses APIs do.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var name string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case line == "data: [DONE]":
			out = append(out, sseEvent{name: "[DONE]"})
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if name != "" && d["type"] != name {
				t.Errorf("event %q carries type %v", name, d["type"])
			}
			out = append(out, sseEvent{name, d})
		}
	}
	return out
}

// post sends a JSON body to the fake and returns the response.
func post(t *testing.T, s *Server, path string, body map[string]any) *http.Response {
	t.Helper()
	rsp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(mustJSON(body)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rsp.Body.Close() })
	return rsp
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
