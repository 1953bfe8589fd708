package fakemodel

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func mainBody(text string) map[string]any {
	return map[string]any{
		"model": "claude-test", "max_tokens": 1000, "stream": true,
		"tools":    []map[string]any{{"name": "Bash"}},
		"messages": []map[string]any{{"role": "user", "content": text}},
	}
}

func TestStreamAllBlockKinds(t *testing.T) {
	s := NewTest(t, Turn{
		Blocks: []Block{Thinking("hmm"), Text("Running it — ünïcode."), Bash("echo hello")},
		Usage:  Usage{InputTokens: 7, CacheCreationInputTokens: 3, CacheReadInputTokens: 5, OutputTokens: 11},
	})
	rsp := post(t, s, "/v1/messages?beta=true", mainBody("go"))
	if ct := rsp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	if rsp.Header.Get("Request-Id") == "" {
		t.Error("no request-id header; Claude Code records it as requestId")
	}
	events := readSSE(t, rsp.Body)

	var names []string
	text := map[int]string{}
	var sig string
	for _, e := range events {
		names = append(names, e.name)
		if e.name != "content_block_delta" {
			continue
		}
		d := e.data["delta"].(map[string]any)
		idx := int(e.data["index"].(float64))
		switch d["type"] {
		case "text_delta":
			text[idx] += d["text"].(string)
		case "thinking_delta":
			text[idx] += d["thinking"].(string)
		case "input_json_delta":
			text[idx] += d["partial_json"].(string)
		case "signature_delta":
			sig = d["signature"].(string)
		}
	}
	if names[0] != "message_start" || names[len(names)-2] != "message_delta" || names[len(names)-1] != "message_stop" {
		t.Fatalf("event order: %v", names)
	}
	start := events[0].data["message"].(map[string]any)
	if !strings.HasPrefix(start["id"].(string), "msg_") || start["model"] != "claude-test" {
		t.Errorf("message_start: %v", start)
	}
	u := start["usage"].(map[string]any)
	if u["input_tokens"] != 7.0 || u["cache_creation_input_tokens"] != 3.0 || u["cache_read_input_tokens"] != 5.0 {
		t.Errorf("start usage: %v", u)
	}
	md := events[len(events)-2].data
	if md["delta"].(map[string]any)["stop_reason"] != "tool_use" || md["usage"].(map[string]any)["output_tokens"] != 11.0 {
		t.Errorf("message_delta: %v", md)
	}
	if text[0] != "hmm" || sig == "" {
		t.Errorf("thinking %q signature %q", text[0], sig)
	}
	if text[1] != "Running it — ünïcode." {
		t.Errorf("text %q", text[1])
	}
	var input map[string]any
	if err := json.Unmarshal([]byte(text[2]), &input); err != nil || input["command"] != "echo hello" {
		t.Errorf("tool input %q: %v", text[2], err)
	}
}

func TestSideRequestsDoNotConsumeScript(t *testing.T) {
	s := NewTest(t, Reply(Text("scripted")))
	ctx := context.Background()

	// HEAD /api/hello and unknown paths: 200 {}.
	req, _ := http.NewRequestWithContext(ctx, http.MethodHead, s.URL()+"/api/hello", nil)
	rsp, err := http.DefaultClient.Do(req)
	if err != nil || rsp.StatusCode != 200 {
		t.Fatalf("HEAD /api/hello: %v %v", rsp, err)
	}
	rsp.Body.Close()
	if b, _ := io.ReadAll(post(t, s, "/api/event_logging/batch", map[string]any{"x": 1}).Body); string(b) != "{}" {
		t.Errorf("other path answered %q", b)
	}

	// A title-style call without tools, a quota check, a warm-up: side.
	side := map[string]any{"model": "claude-haiku", "max_tokens": 50, "messages": []map[string]any{{"role": "user", "content": "title?"}}}
	var msg struct {
		Content []struct{ Text string }
	}
	if err := json.NewDecoder(post(t, s, "/v1/messages", side).Body).Decode(&msg); err != nil || msg.Content[0].Text != "OK" {
		t.Errorf("side reply %+v %v", msg, err)
	}
	warm := mainBody("Warmup")
	readSSE(t, post(t, s, "/v1/messages?beta=true", warm).Body)

	var ct struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(post(t, s, "/v1/messages/count_tokens?beta=true", mainBody("x")).Body).Decode(&ct); err != nil || ct.InputTokens <= 0 {
		t.Errorf("count_tokens %+v %v", ct, err)
	}
	if s.Remaining() != 1 {
		t.Fatalf("side requests consumed the script: %d left", s.Remaining())
	}

	// Main turns: the script, then the fallback.
	for _, want := range []string{"scripted", "done"} {
		var got string
		for _, e := range readSSE(t, post(t, s, "/v1/messages?beta=true", mainBody("hi")).Body) {
			if d, ok := e.data["delta"].(map[string]any); ok && d["type"] == "text_delta" {
				got += d["text"].(string)
			}
		}
		if got != want {
			t.Errorf("main reply %q, want %q", got, want)
		}
	}
	kinds := map[Kind]int{}
	for _, r := range s.Requests() {
		kinds[r.Kind]++
	}
	want := map[Kind]int{KindOther: 2, KindSide: 1, KindWarmup: 1, KindCountTokens: 1, KindMain: 2}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%s requests: %d, want %d (all: %v)", k, kinds[k], n, kinds)
		}
	}
}

func TestNonStreamingMain(t *testing.T) {
	s := NewTest(t, Reply(Text("a"), ToolUse("Read", map[string]any{"file_path": "/x"})))
	body := mainBody("hi")
	body["stream"] = false
	var msg struct {
		ID         string
		StopReason string `json:"stop_reason"`
		Content    []Content
		Usage      struct {
			InputTokens int `json:"input_tokens"`
		}
	}
	if err := json.NewDecoder(post(t, s, "/v1/messages", body).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != "tool_use" || len(msg.Content) != 2 || msg.Content[1].Name != "Read" || msg.Usage.InputTokens == 0 {
		t.Errorf("message %+v", msg)
	}
}

func TestWaitRequestAndDecoding(t *testing.T) {
	s := NewTest(t)
	go func() {
		time.Sleep(50 * time.Millisecond)
		body := mainBody("")
		body["messages"] = []map[string]any{
			{"role": "user", "content": []map[string]any{{"type": "text", "text": "<system-reminder>x</system-reminder>"}, {"type": "text", "text": "ping"}}},
			{"role": "assistant", "content": []map[string]any{{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{}}}},
			{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": []map[string]any{{"type": "text", "text": "boom"}}}}},
		}
		rsp, err := http.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader(mustJSON(body)))
		if err == nil {
			_, _ = io.Copy(io.Discard, rsp.Body)
			rsp.Body.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := s.WaitRequest(ctx, func(r Request) bool { return r.ContainsText("boom") })
	if err != nil {
		t.Fatal(err)
	}
	if r.LastUserText() != "ping" {
		t.Errorf("LastUserText %q", r.LastUserText())
	}
	if tr, ok := r.ToolResult("t1"); !ok || !tr.IsError || tr.ResultText() != "boom" {
		t.Errorf("tool result %+v %v", tr, ok)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if _, err := s.WaitRequest(short, func(Request) bool { return false }); err == nil {
		t.Error("WaitRequest without a match returned no error")
	}
}

func TestErrorStatus(t *testing.T) {
	s := NewTest(t, Turn{Status: 529, ErrorType: "overloaded_error"})
	rsp := post(t, s, "/v1/messages", mainBody("hi"))
	var e struct {
		Type  string
		Error struct{ Type string }
	}
	if err := json.NewDecoder(rsp.Body).Decode(&e); err != nil || rsp.StatusCode != 529 || e.Error.Type != "overloaded_error" {
		t.Errorf("status %d body %+v %v", rsp.StatusCode, e, err)
	}
}

func TestCloseAbortsSlowStream(t *testing.T) {
	s := New(Turn{Blocks: []Block{Text("slow")}, Delay: time.Hour})
	if _, err := s.Start(); err != nil {
		t.Fatal(err)
	}
	rsp := post(t, s, "/v1/messages", mainBody("hi"))
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung on a delayed stream")
	}
	_, _ = io.Copy(io.Discard, rsp.Body)
}

func TestChunksKeepRunesWhole(t *testing.T) {
	in := "héllo wörld ✓ 😀 end"
	var joined string
	for _, c := range chunks(in, 3) {
		if !utf8.ValidString(c) || utf8.RuneCountInString(c) > 3 {
			t.Errorf("bad chunk %q", c)
		}
		joined += c
	}
	if joined != in {
		t.Errorf("chunks rejoin to %q", joined)
	}
}

// TestHoldKeepsTheResponseUntilReleased: a held turn is not answered
// before Hold closes (a working fake answers at once: the window only
// gives a broken one time to show itself, a correct one never ends in
// it), and is answered whole after.
func TestHoldKeepsTheResponseUntilReleased(t *testing.T) {
	hold := make(chan struct{})
	s := NewTest(t, Turn{Blocks: []Block{Text("after the hold")}, Hold: hold})
	rsp := post(t, s, "/v1/messages", mainBody("hi"))
	got := make(chan []sseEvent, 1)
	go func() { got <- readSSE(t, rsp.Body) }()
	if _, err := s.WaitRequest(context.Background(), func(r Request) bool { return r.Kind == KindMain }); err != nil {
		t.Fatal(err)
	}
	select {
	case evs := <-got:
		t.Fatalf("the held response ended before its release: %v", evs)
	case <-time.After(300 * time.Millisecond):
	}
	close(hold)
	evs := <-got
	if len(evs) == 0 || evs[0].name != "message_start" || evs[len(evs)-1].name != "message_stop" {
		t.Errorf("released response: %v", evs)
	}
}
