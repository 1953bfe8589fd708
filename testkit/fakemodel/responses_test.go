package fakemodel

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// postEvents posts a raw body and reads the answer's events (none when
// it is not a stream).
func postEvents(t *testing.T, url, body string) (*http.Response, []sseEvent) {
	t.Helper()
	rsp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	if rsp.Header.Get("Content-Type") != "text/event-stream" {
		return rsp, nil
	}
	return rsp, readSSE(t, rsp.Body)
}

func TestStreamsEveryItemKind(t *testing.T) {
	srv := NewTest(t, Turn{
		Blocks: []Block{Thinking("thinking hard"), Text("héllo wörld, this is long enough to chunk"),
			ToolUse("shell", map[string]any{"command": []string{"bash", "-lc", "ls"}}),
			CustomTool("apply_patch", "*** Begin Patch\n*** End Patch\n")},
		Usage:      Usage{InputTokens: 600, CacheReadInputTokens: 400, OutputTokens: 90, ReasoningTokens: 30},
		ChunkRunes: 5,
	})
	_, evs := postEvents(t, srv.URL()+"/v1/responses", `{"model":"gpt-test","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`)
	if len(evs) < 10 || evs[0].name != "response.created" || evs[len(evs)-1].name != "response.completed" {
		t.Fatalf("stream: %v", evs)
	}
	var text, summary, args, input strings.Builder
	var done []map[string]any
	seq := -1.0
	for _, e := range evs {
		if s := e.data["sequence_number"].(float64); s != seq+1 {
			t.Errorf("sequence %v after %v", s, seq)
		} else {
			seq = s
		}
		switch e.name {
		case "response.output_text.delta":
			text.WriteString(e.data["delta"].(string))
		case "response.reasoning_summary_text.delta":
			summary.WriteString(e.data["delta"].(string))
		case "response.function_call_arguments.delta":
			args.WriteString(e.data["delta"].(string))
		case "response.custom_tool_call_input.delta":
			input.WriteString(e.data["delta"].(string))
		case "response.output_item.done":
			done = append(done, e.data["item"].(map[string]any))
		}
	}
	if text.String() != "héllo wörld, this is long enough to chunk" || summary.String() != "thinking hard" ||
		args.String() != `{"command":["bash","-lc","ls"]}` || input.String() != "*** Begin Patch\n*** End Patch\n" {
		t.Errorf("deltas: %q %q %q %q", text.String(), summary.String(), args.String(), input.String())
	}
	if len(done) != 4 || done[2]["call_id"] != "call_fake0001_2" || done[3]["type"] != "custom_tool_call" || done[0]["summary"].([]any)[0].(map[string]any)["text"] != "thinking hard" {
		t.Errorf("items: %v", done)
	}
	final := evs[len(evs)-1].data["response"].(map[string]any)
	u := final["usage"].(map[string]any)
	if final["model"] != "gpt-test" || u["input_tokens"].(float64) != 1000 ||
		u["input_tokens_details"].(map[string]any)["cached_tokens"].(float64) != 400 ||
		u["output_tokens_details"].(map[string]any)["reasoning_tokens"].(float64) != 30 || len(final["output"].([]any)) != 4 {
		t.Errorf("completed: %v", final)
	}
	r := srv.Requests()[0]
	if r.Kind != KindMain || r.Model() != "gpt-test" || r.API != Responses || r.UserTexts()[0] != "hi" || !r.Contains("hi") || r.Contains("nope") {
		t.Errorf("recorded: %+v", r)
	}
}

func TestScriptFallbackErrorsAndModels(t *testing.T) {
	srv := NewTest(t,
		Build(func(r Request) []Block { return []Block{Shell(r.ToolNames(), "pwd"), ApplyPatch(r, "P")} }),
		Turn{Status: 500},
		Turn{Blocks: []Block{Text("half")}, Fail: "boom"})
	body := `{"stream":true,"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"},{"type":"web_search"}]}`
	_, evs := postEvents(t, srv.URL()+"/responses", body)
	var items []map[string]any
	for _, e := range evs {
		if e.name == "response.output_item.done" {
			items = append(items, e.data["item"].(map[string]any))
		}
	}
	if len(items) != 2 || items[0]["name"] != "exec_command" || items[0]["arguments"] != `{"cmd":"pwd","yield_time_ms":10000}` || items[1]["type"] != "custom_tool_call" {
		t.Errorf("built items: %v", items)
	}
	if got := srv.Requests()[0].ToolNames(); strings.Join(got, ",") != "exec_command,apply_patch,web_search" {
		t.Errorf("tool names: %v", got)
	}
	rsp, _ := postEvents(t, srv.URL()+"/responses", `{"stream":true}`)
	if rsp.StatusCode != 500 {
		t.Errorf("scripted status: %d", rsp.StatusCode)
	}
	_, evs = postEvents(t, srv.URL()+"/responses", `{"stream":true}`)
	if evs[len(evs)-1].name != "response.failed" {
		t.Errorf("scripted failure ends with %s", evs[len(evs)-1].name)
	}
	_, evs = postEvents(t, srv.URL()+"/responses", `{"stream":true}`) // script exhausted
	if srv.Remaining() != 0 || evs[len(evs)-1].name != "response.completed" {
		t.Errorf("fallback: %v", evs)
	}
	rsp, err := http.Get(srv.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rsp.Body)
	rsp.Body.Close()
	if string(b) != `{"models":[],"data":[]}` {
		t.Errorf("models: %s", b)
	}
	if k := srv.Requests()[len(srv.Requests())-1].Kind; k != KindModels {
		t.Errorf("models kind %s", k)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go func() {
		_, _ = http.Post(srv.URL()+"/responses", "application/json", strings.NewReader(`{"stream":false,"input":[{"role":"user","content":[{"type":"input_text","text":"late"}]}]}`))
	}()
	r, err := srv.WaitRequest(ctx, func(r Request) bool { return r.Contains("late") })
	if err != nil || r.Streamed() {
		t.Errorf("wait: %+v %v", r, err)
	}
}

func TestWebSearchItem(t *testing.T) {
	srv := NewTest(t, Reply(WebSearch("q1")))
	_, evs := postEvents(t, srv.URL()+"/responses", `{"stream":true}`)
	var names []string
	for _, e := range evs {
		names = append(names, e.name)
	}
	item := evs[len(evs)-2].data["item"].(map[string]any)
	if !strings.Contains(strings.Join(names, " "), "response.web_search_call.searching") || item["type"] != "web_search_call" ||
		item["action"].(map[string]any)["query"] != "q1" {
		t.Errorf("web search: %v %v", names, item)
	}
}

func TestShellForms(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"shell_command": `{"command":"ls"}`,
		"exec_command":  `{"cmd":"ls","yield_time_ms":10000}`,
		"shell":         `{"command":["bash","-lc","ls"]}`,
	}
	for tool, want := range cases {
		it := Shell([]string{"view_image", tool}, "ls")
		if it.Name != tool || it.inputJSON() != want {
			t.Errorf("%s: %s %s", tool, it.Name, it.inputJSON())
		}
	}
	if it := ApplyPatch(Request{Responses: ResponsesRequest{Tools: []ResponsesTool{{Type: "function", Name: "apply_patch"}}}}, "P"); it.Type != "tool_use" || it.inputJSON() != `{"input":"P"}` {
		t.Errorf("function apply_patch: %+v", it)
	}
	if it := ApplyPatch(Request{}, "P"); it.Name != "shell" || it.inputJSON() != `{"command":["apply_patch","P"]}` {
		t.Errorf("shell apply_patch: %+v", it)
	}
}

// TestARunningCommandIsPolled: a request whose newest item says a Codex
// command still runs is answered with write_stdin polling its session,
// spending no tokens and taking no scripted turn; the scripted answer
// comes once the command has ended, and an older "still running" output
// earlier in the conversation does not count.
func TestARunningCommandIsPolled(t *testing.T) {
	const running = `"Chunk ID: ab12\nWall time: 10.0 seconds\nProcess running with session ID 4821\nOriginal token count: 0\nOutput:\n"`
	const exited = `"Chunk ID: cd34\nWall time: 3.1 seconds\nProcess exited with code 0\nOutput:\nthrough\n"`
	body := func(outputs ...string) string {
		items := []string{`{"type":"message","role":"user","content":[{"type":"input_text","text":"wait for it"}]}`}
		for i, o := range outputs {
			items = append(items, fmt.Sprintf(`{"type":"function_call","name":"exec_command","call_id":"c%d","arguments":"{}"}`, i),
				fmt.Sprintf(`{"type":"function_call_output","call_id":"c%d","output":%s}`, i, o))
		}
		return `{"stream":true,"input":[` + strings.Join(items, ",") + `]}`
	}
	srv := NewTest(t, Reply(Text("it ended")))
	for _, tt := range []struct {
		name     string
		outputs  []string
		kind     Kind
		item     string // the answer's item: its name or its text
		usage    float64
		scripted int // scripted turns left after it
	}{
		{"yielded", []string{running}, KindPoll, "write_stdin", 0, 1},
		{"still running at the poll", []string{running, running}, KindPoll, "write_stdin", 0, 1},
		{"ended", []string{running, exited}, KindMain, "it ended", 120, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, evs := postEvents(t, srv.URL()+"/responses", body(tt.outputs...))
			reqs := srv.Requests()
			if k := reqs[len(reqs)-1].Kind; k != tt.kind {
				t.Errorf("kind %s, want %s", k, tt.kind)
			}
			final := evs[len(evs)-1].data["response"].(map[string]any)
			item := final["output"].([]any)[0].(map[string]any)
			got, _ := item["name"].(string)
			if content, ok := item["content"].([]any); ok {
				got = content[0].(map[string]any)["text"].(string)
			}
			if got != tt.item {
				t.Errorf("answered %v, want %s", item, tt.item)
			}
			if tt.kind == KindPoll && item["arguments"] != `{"chars":"","session_id":4821,"yield_time_ms":300000}` {
				t.Errorf("poll arguments %v", item["arguments"])
			}
			if u := final["usage"].(map[string]any)["total_tokens"].(float64); u != tt.usage {
				t.Errorf("%v tokens, want %v", u, tt.usage)
			}
			if srv.Remaining() != tt.scripted {
				t.Errorf("%d scripted turns left, want %d", srv.Remaining(), tt.scripted)
			}
		})
	}
}
