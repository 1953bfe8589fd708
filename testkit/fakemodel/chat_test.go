package fakemodel

import (
	"encoding/json"
	"strings"
	"testing"
)

// chatBody is a Chat Completions request offering one tool.
func chatBody(stream bool, messages ...map[string]any) map[string]any {
	return map[string]any{
		"model": "gpt-chat-test", "stream": stream, "stream_options": map[string]any{"include_usage": true},
		"tools":    []map[string]any{{"type": "function", "function": map[string]any{"name": "read", "parameters": map[string]any{}}}},
		"messages": messages,
	}
}

// chatStreamed is what a client rebuilds from a streamed Chat answer.
type chatStreamed struct {
	text, reasoning string
	calls           []map[string]string // id, name, arguments
	finish          string
	usage           map[string]any
	done            bool
}

func readChat(t *testing.T, evs []sseEvent) chatStreamed {
	t.Helper()
	var out chatStreamed
	for i, e := range evs {
		if e.name == "[DONE]" {
			out.done = i == len(evs)-1
			continue
		}
		if e.data["object"] != "chat.completion.chunk" || !strings.HasPrefix(e.data["id"].(string), "chatcmpl-") {
			t.Errorf("chunk %v", e.data)
		}
		if u, ok := e.data["usage"].(map[string]any); ok {
			out.usage = u
		}
		for _, c := range e.data["choices"].([]any) {
			choice := c.(map[string]any)
			if f, ok := choice["finish_reason"].(string); ok {
				out.finish = f
			}
			d := choice["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				out.text += s
			}
			if s, ok := d["reasoning_content"].(string); ok {
				out.reasoning += s
			}
			calls, _ := d["tool_calls"].([]any)
			for _, tc := range calls {
				tc := tc.(map[string]any)
				idx := int(tc["index"].(float64))
				if idx == len(out.calls) {
					out.calls = append(out.calls, map[string]string{})
				}
				if id, ok := tc["id"].(string); ok {
					out.calls[idx]["id"] = id
				}
				fn := tc["function"].(map[string]any)
				if n, ok := fn["name"].(string); ok {
					out.calls[idx]["name"] = n
				}
				out.calls[idx]["arguments"] += fn["arguments"].(string)
			}
		}
	}
	return out
}

func TestChatStreamsEveryBlockKind(t *testing.T) {
	s := NewTest(t, Turn{
		Blocks: []Block{Thinking("pondering"), Text("Reading — ünïcode."), ToolUse("read", map[string]any{"path": "a.go"}),
			CustomTool("apply_patch", "*** Begin Patch"), WebSearch("not on this API")},
		Usage:      Usage{InputTokens: 70, CacheReadInputTokens: 30, OutputTokens: 12, ReasoningTokens: 4},
		ChunkRunes: 3,
	})
	rsp := post(t, s, "/v1/chat/completions", chatBody(true, map[string]any{"role": "user", "content": "go"}))
	if ct := rsp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	got := readChat(t, readSSE(t, rsp.Body))
	if got.reasoning != "pondering" || got.text != "Reading — ünïcode." || !got.done || got.finish != "tool_calls" {
		t.Errorf("streamed %+v", got)
	}
	if len(got.calls) != 2 || got.calls[0]["id"] != "call_fake0001_2" || got.calls[0]["name"] != "read" ||
		got.calls[0]["arguments"] != `{"path":"a.go"}` || got.calls[1]["name"] != "apply_patch" ||
		got.calls[1]["arguments"] != `{"input":"*** Begin Patch"}` {
		t.Errorf("tool calls %v", got.calls)
	}
	if got.usage["prompt_tokens"] != 100.0 || got.usage["completion_tokens"] != 12.0 ||
		got.usage["prompt_tokens_details"].(map[string]any)["cached_tokens"] != 30.0 ||
		got.usage["completion_tokens_details"].(map[string]any)["reasoning_tokens"] != 4.0 {
		t.Errorf("usage %v", got.usage)
	}
}

func TestChatRequestsSideCallsAndPlainAnswers(t *testing.T) {
	s := NewTest(t, Reply(Text("scripted"), ToolUse("read", map[string]any{"path": "b"})))
	title := map[string]any{"model": "small", "messages": []map[string]any{{"role": "user", "content": "name this chat"}}}
	var side struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	if err := json.NewDecoder(post(t, s, "/chat/completions", title).Body).Decode(&side); err != nil ||
		len(side.Choices) != 1 || side.Choices[0].Message.Content != "OK" || s.Remaining() != 1 {
		t.Fatalf("side call %+v %v (script left %d)", side, err, s.Remaining())
	}
	body := chatBody(false,
		map[string]any{"role": "system", "content": "be brief"},
		map[string]any{"role": "user", "content": []map[string]any{{"type": "text", "text": "first"}}},
		map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{"id": "c1", "type": "function", "function": map[string]any{"name": "read", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "file body"},
		map[string]any{"role": "user", "content": "second"})
	var msg struct {
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []ChatToolCall `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
		Usage map[string]any
	}
	if err := json.NewDecoder(post(t, s, "/v1/chat/completions", body).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	c := msg.Choices[0]
	if c.Message.Content != "scripted" || c.FinishReason != "tool_calls" || len(c.Message.ToolCalls) != 1 ||
		c.Message.ToolCalls[0].Function.Arguments != `{"path":"b"}` || msg.Usage["prompt_tokens"] != 100.0 {
		t.Errorf("answer %+v", msg)
	}
	r := s.MainRequests()[0]
	if r.API != Chat || r.Model() != "gpt-chat-test" || strings.Join(r.UserTexts(), "|") != "first|second" ||
		r.ToolOutputs()["c1"] != "file body" || r.SystemText() != "be brief" || !r.ContainsText("file body") ||
		strings.Join(r.ToolNames(), ",") != "read" {
		t.Errorf("recorded %+v", r)
	}
}

// TestOneScriptThreeAPIs serves the same turn on each API and reads it
// back as that API's client would: the same text, the same tool call, the
// same tokens in each API's convention.
func TestOneScriptThreeAPIs(t *testing.T) {
	turn := Turn{Blocks: []Block{Text("hello"), ToolUse("read", map[string]any{"path": "a"})},
		Usage: Usage{InputTokens: 10, CacheReadInputTokens: 5, OutputTokens: 7}}
	type read struct {
		text, tool, args string
		input            float64 // input tokens as the API counts them
	}
	cases := []struct {
		api  API
		path string
		body map[string]any
		read func(t *testing.T, evs []sseEvent) read
		want read
	}{
		{Messages, "/v1/messages", mainBody("hi"), func(t *testing.T, evs []sseEvent) read {
			var r read
			for _, e := range evs {
				switch e.name {
				case "message_start":
					r.input = e.data["message"].(map[string]any)["usage"].(map[string]any)["input_tokens"].(float64)
				case "content_block_start":
					if b := e.data["content_block"].(map[string]any); b["type"] == "tool_use" {
						r.tool = b["name"].(string)
					}
				case "content_block_delta":
					d := e.data["delta"].(map[string]any)
					if s, ok := d["text"].(string); ok {
						r.text += s
					}
					if s, ok := d["partial_json"].(string); ok {
						r.args += s
					}
				}
			}
			return r
		}, read{"hello", "read", `{"path":"a"}`, 10}},
		{Responses, "/v1/responses", map[string]any{"model": "m", "stream": true, "input": []any{}}, func(t *testing.T, evs []sseEvent) read {
			var r read
			for _, e := range evs {
				switch e.name {
				case "response.output_text.delta":
					r.text += e.data["delta"].(string)
				case "response.output_item.done":
					if it := e.data["item"].(map[string]any); it["type"] == "function_call" {
						r.tool, r.args = it["name"].(string), it["arguments"].(string)
					}
				case "response.completed":
					r.input = e.data["response"].(map[string]any)["usage"].(map[string]any)["input_tokens"].(float64)
				}
			}
			return r
		}, read{"hello", "read", `{"path":"a"}`, 15}},
		{Chat, "/v1/chat/completions", chatBody(true), func(t *testing.T, evs []sseEvent) read {
			c := readChat(t, evs)
			r := read{text: c.text, input: c.usage["prompt_tokens"].(float64)}
			if len(c.calls) == 1 {
				r.tool, r.args = c.calls[0]["name"], c.calls[0]["arguments"]
			}
			return r
		}, read{"hello", "read", `{"path":"a"}`, 15}},
	}
	for _, tc := range cases {
		t.Run(string(tc.api), func(t *testing.T) {
			s := NewTest(t, turn)
			if got := tc.read(t, readSSE(t, post(t, s, tc.path, tc.body).Body)); got != tc.want {
				t.Errorf("read back %+v, want %+v", got, tc.want)
			}
			if rs := s.MainRequests(); len(rs) != 1 || rs[0].API != tc.api || s.Remaining() != 0 {
				t.Errorf("recorded %+v, %d turns left", rs, s.Remaining())
			}
		})
	}
}
