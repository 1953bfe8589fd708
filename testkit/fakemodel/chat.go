package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ChatRequest is the part of a Chat Completions request body tests look
// at; Raw keeps everything.
type ChatRequest struct {
	Model     string        `json:"model"`
	Stream    bool          `json:"stream"`
	MaxTokens int           `json:"max_tokens,omitempty"`
	Messages  []ChatMessage `json:"messages"`
	Tools     []ChatTool    `json:"tools,omitempty"`
}

// ChatMessage is one message of a Chat Completions conversation.
type ChatMessage struct {
	Role string `json:"role"`
	// Content is a string or an array of parts ({"type":"text","text":…}).
	Content    json.RawMessage `json:"content"`
	ToolCalls  []ChatToolCall  `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// Text is the message's text, its parts joined.
func (m ChatMessage) Text() string { return textOf(m.Content, "\n", nil) }

// ChatToolCall is an assistant's tool call sent back in the conversation.
type ChatToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ChatTool is a tool definition offered on the Chat Completions API.
type ChatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

func (b ChatRequest) userTexts() []string {
	var out []string
	for _, m := range b.Messages {
		if m.Role == "user" {
			out = append(out, m.Text())
		}
	}
	return out
}

func (b ChatRequest) texts() []string {
	var out []string
	for _, m := range b.Messages {
		if m.Role != "tool" {
			out = append(out, m.Text())
		}
	}
	return out
}

func (b ChatRequest) toolOutputs() map[string]string {
	out := map[string]string{}
	for _, m := range b.Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Text()
		}
	}
	return out
}

func (b ChatRequest) systemText() string {
	var parts []string
	for _, m := range b.Messages {
		if m.Role == "system" || m.Role == "developer" {
			parts = append(parts, m.Text())
		}
	}
	return strings.Join(parts, "\n")
}

// finishReason is the Chat API's name for the turn's stop reason.
func (a answer) finishReason() string {
	switch r := a.stopReason(); r {
	case "tool_use":
		return "tool_calls"
	case "end_turn":
		return "stop"
	case "max_tokens":
		return "length"
	default:
		return r
	}
}

// chatUsage is the usage on the Chat API's wire.
func chatUsage(u Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":             u.openAIInput(),
		"completion_tokens":         u.OutputTokens,
		"total_tokens":              u.openAIInput() + u.OutputTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheReadInputTokens},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
	}
}

// chatCall is a tool call on the Chat API's wire.
func chatCall(b Block, args string) map[string]any {
	return map[string]any{"id": b.ID, "type": "function", "function": map[string]any{"name": b.Name, "arguments": args}}
}

func (a answer) chatJSON(w http.ResponseWriter) {
	var text, reasoning strings.Builder
	calls := []any{}
	for _, b := range a.blocks {
		switch {
		case b.isCall():
			calls = append(calls, chatCall(b, b.inputJSON()))
		case b.Type == "thinking":
			reasoning.WriteString(b.Text)
		default:
			text.WriteString(b.Text)
		}
	}
	msg := map[string]any{"role": "assistant", "content": text.String()}
	if reasoning.Len() > 0 {
		msg["reasoning_content"] = reasoning.String()
	}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake%04d", a.seq), "object": "chat.completion", "created": time.Now().Unix(),
		"model": a.model, "usage": chatUsage(a.turn.usage()),
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": a.finishReason()}},
	})
}

// chatStream streams the answer as chat.completion.chunk events: a role,
// reasoning_content and content deltas, each tool call's name then its
// arguments in pieces, a last chunk with finish_reason and usage, [DONE].
func (a answer) chatStream(ctx context.Context, w http.ResponseWriter) error {
	s, err := startStream(ctx, w, a.turn)
	if err != nil {
		return err
	}
	id, created := fmt.Sprintf("chatcmpl-fake%04d", a.seq), time.Now().Unix()
	chunk := func(delta map[string]any, finish any, usage any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": a.model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	send := func(delta map[string]any) error {
		if err := s.pause(); err != nil {
			return err
		}
		return s.data(chunk(delta, nil, nil))
	}
	if err := s.data(chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)); err != nil {
		return err
	}
	call := 0
	for _, b := range a.blocks {
		switch {
		case b.isCall():
			if err := send(map[string]any{"tool_calls": []any{map[string]any{"index": call, "id": b.ID, "type": "function",
				"function": map[string]any{"name": b.Name, "arguments": ""}}}}); err != nil {
				return err
			}
			for _, c := range chunks(b.inputJSON(), a.turn.chunkRunes()) {
				if err := send(map[string]any{"tool_calls": []any{map[string]any{"index": call, "function": map[string]any{"arguments": c}}}}); err != nil {
					return err
				}
			}
			call++
		default:
			key := "content"
			if b.Type == "thinking" {
				key = "reasoning_content"
			}
			for _, c := range chunks(b.Text, a.turn.chunkRunes()) {
				if err := send(map[string]any{key: c}); err != nil {
					return err
				}
			}
		}
	}
	if a.turn.Fail != "" {
		return s.data(map[string]any{"error": map[string]any{"type": "server_error", "message": a.turn.Fail}})
	}
	if err := s.data(chunk(map[string]any{}, a.finishReason(), chatUsage(a.turn.usage()))); err != nil {
		return err
	}
	return s.data("[DONE]")
}
