package fakemodel

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// MessagesRequest is the part of a Messages API request body tests look at.
type MessagesRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system,omitempty"`
	Messages  []Message       `json:"messages"`
	Tools     []Tool          `json:"tools,omitempty"`
	Thinking  json.RawMessage `json:"thinking,omitempty"`
}

// Tool is a tool definition offered on the Messages API.
type Tool struct {
	Name string `json:"name"`
}

// Message is one Messages API conversation message.
type Message struct {
	Role    string
	Content []Content
}

// UnmarshalJSON accepts both content forms the API allows: a plain string
// or an array of blocks.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return fmt.Errorf("decode message: %w", err)
	}
	m.Role = raw.Role
	m.Content = nil
	var s string
	if err := json.Unmarshal(raw.Content, &s); err == nil {
		m.Content = []Content{{Type: "text", Text: s}}
		return nil
	}
	if err := json.Unmarshal(raw.Content, &m.Content); err != nil {
		return fmt.Errorf("decode message content: %w", err)
	}
	return nil
}

// Content is one content block of a Messages API request message.
type Content struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

// ResultText is a tool_result's content as text, whichever form it came in.
func (c Content) ResultText() string { return textOf(c.Content, "", nil) }

// ToolResult returns the Messages API tool_result block answering
// toolUseID, if present (with its is_error flag, which the other APIs do
// not have).
func (r Request) ToolResult(toolUseID string) (Content, bool) {
	for _, m := range r.Anthropic.Messages {
		for _, c := range m.Content {
			if c.Type == "tool_result" && c.ToolUseID == toolUseID {
				return c, true
			}
		}
	}
	return Content{}, false
}

func isReminder(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "<system-reminder>")
}

func (b MessagesRequest) userTexts() []string {
	var out []string
	for _, m := range b.Messages {
		if m.Role != "user" {
			continue
		}
		var parts []string
		for _, c := range m.Content {
			if c.Type == "text" && !isReminder(c.Text) {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) > 0 {
			out = append(out, strings.Join(parts, "\n"))
		}
	}
	return out
}

func (b MessagesRequest) texts() []string {
	var out []string
	for _, m := range b.Messages {
		for _, c := range m.Content {
			out = append(out, c.Text)
		}
	}
	return out
}

func (b MessagesRequest) toolOutputs() map[string]string {
	out := map[string]string{}
	for _, m := range b.Messages {
		for _, c := range m.Content {
			if c.Type == "tool_result" {
				out[c.ToolUseID] = c.ResultText()
			}
		}
	}
	return out
}

func (b MessagesRequest) systemText() string { return textOf(b.System, "\n", nil) }

func (b MessagesRequest) isWarmup() bool {
	if len(b.Messages) != 1 {
		return false
	}
	for _, c := range b.Messages[0].Content {
		if c.Type == "text" && strings.TrimSpace(c.Text) == "Warmup" {
			return true
		}
	}
	return false
}

// messageID is the id of the Messages API answer to request seq.
func messageID(seq int) string { return fmt.Sprintf("msg_fake%04d", seq) }

func (a answer) stopReason() string {
	if a.turn.StopReason != "" {
		return a.turn.StopReason
	}
	for _, b := range a.blocks {
		if b.isCall() {
			return "tool_use"
		}
	}
	return "end_turn"
}

// anthropicUsage is the usage on the Messages API's wire.
func anthropicUsage(u Usage) map[string]any {
	return map[string]any{
		"input_tokens":                u.InputTokens,
		"cache_creation_input_tokens": u.CacheCreationInputTokens,
		"cache_read_input_tokens":     u.CacheReadInputTokens,
		"output_tokens":               u.OutputTokens,
	}
}

// anthropicBlock is a block as it appears in a complete message.
func anthropicBlock(b Block) map[string]any {
	switch b.Type {
	case "thinking":
		return map[string]any{"type": "thinking", "thinking": b.Text, "signature": b.signature()}
	case "tool_use", "custom_tool":
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": json.RawMessage(b.inputJSON())}
	default:
		return map[string]any{"type": "text", "text": b.Text}
	}
}

// messageJSON writes the answer as one Messages API message.
func (a answer) messageJSON(w http.ResponseWriter) {
	content := make([]map[string]any, 0, len(a.blocks))
	for _, b := range a.blocks {
		content = append(content, anthropicBlock(b))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": messageID(a.seq), "type": "message", "role": "assistant", "model": a.model,
		"content": content, "stop_reason": a.stopReason(), "stop_sequence": nil,
		"usage": anthropicUsage(a.turn.usage()),
	})
}

func (a answer) messageError(w http.ResponseWriter) {
	typ := cmp.Or(a.turn.ErrorType, "api_error")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.turn.Status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":  "error",
		"error": map[string]any{"type": typ, "message": "fakemodel scripted " + typ},
	})
}

// messageStream streams the answer as the Messages API's events.
func (a answer) messageStream(ctx context.Context, w http.ResponseWriter) error {
	s, err := startStream(ctx, w, a.turn)
	if err != nil {
		return err
	}
	u := a.turn.usage()
	start := u
	start.OutputTokens = 1 // the real API opens with a token or so, finalised in message_delta
	if err := s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": messageID(a.seq), "type": "message", "role": "assistant", "model": a.model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": anthropicUsage(start),
	}}); err != nil {
		return err
	}
	if err := s.event("ping", map[string]any{"type": "ping"}); err != nil {
		return err
	}
	for i := range a.blocks {
		if err := a.messageBlock(s, i); err != nil {
			return err
		}
	}
	if err := s.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": a.stopReason(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens},
	}); err != nil {
		return err
	}
	return s.event("message_stop", map[string]any{"type": "message_stop"})
}

func (a answer) messageBlock(s *sse, i int) error {
	b := a.blocks[i]
	var start map[string]any
	var deltas []map[string]any
	switch b.Type {
	case "thinking":
		start = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
		for _, c := range chunks(b.Text, a.turn.chunkRunes()) {
			deltas = append(deltas, map[string]any{"type": "thinking_delta", "thinking": c})
		}
		deltas = append(deltas, map[string]any{"type": "signature_delta", "signature": b.signature()})
	case "tool_use", "custom_tool":
		start = map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}}
		deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": ""})
		for _, c := range chunks(b.inputJSON(), a.turn.chunkRunes()) {
			deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": c})
		}
	default:
		start = map[string]any{"type": "text", "text": ""}
		for _, c := range chunks(b.Text, a.turn.chunkRunes()) {
			deltas = append(deltas, map[string]any{"type": "text_delta", "text": c})
		}
	}
	if err := s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": start}); err != nil {
		return err
	}
	for _, d := range deltas {
		if err := s.pause(); err != nil {
			return err
		}
		if err := s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d}); err != nil {
			return err
		}
	}
	return s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
}
