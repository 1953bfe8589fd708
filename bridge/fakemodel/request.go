package fakemodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Kind says how the server treated a request.
type Kind string

const (
	// KindMain is a conversation turn (the main agent's or a subagent's):
	// it consumes the script.
	KindMain Kind = "main"
	// KindSide is an auxiliary model call (title, summary, quota check…).
	KindSide Kind = "side"
	// KindWarmup is a subagent warm-up call ("Warmup"), sent by 2.0.x at start.
	KindWarmup Kind = "warmup"
	// KindCountTokens is POST /v1/messages/count_tokens.
	KindCountTokens Kind = "count_tokens"
	// KindOther is anything else (HEAD /api/hello, telemetry, …).
	KindOther Kind = "other"
)

// Request is one request the server received.
type Request struct {
	Seq      int
	Time     time.Time
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Raw      []byte
	// Body is Raw decoded as a Messages API request (zero when not JSON).
	Body MessagesRequest
	Kind Kind
}

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

// Tool is a tool definition offered to the model.
type Tool struct {
	Name string `json:"name"`
}

// Message is one conversation message.
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

// Content is one content block of a request message.
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
func (c Content) ResultText() string {
	var s string
	if err := json.Unmarshal(c.Content, &s); err == nil {
		return s
	}
	var blocks []Content
	if err := json.Unmarshal(c.Content, &blocks); err != nil {
		return string(c.Content)
	}
	var b strings.Builder
	for _, blk := range blocks {
		b.WriteString(blk.Text)
	}
	return b.String()
}

// LastUserText is the text of the last user message, the usual thing to
// assert a prompt reached the model. Tool results and the
// <system-reminder> blocks Claude Code adds around prompts are left out.
func (r Request) LastUserText() string {
	for i := len(r.Body.Messages) - 1; i >= 0; i-- {
		m := r.Body.Messages[i]
		if m.Role != "user" {
			continue
		}
		var parts []string
		for _, c := range m.Content {
			if c.Type == "text" && !strings.HasPrefix(strings.TrimSpace(c.Text), "<system-reminder>") {
				parts = append(parts, c.Text)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	return ""
}

// ContainsText reports whether any text or tool_result in the request's
// messages contains s.
func (r Request) ContainsText(s string) bool {
	for _, m := range r.Body.Messages {
		for _, c := range m.Content {
			if strings.Contains(c.Text, s) || (c.Type == "tool_result" && strings.Contains(c.ResultText(), s)) {
				return true
			}
		}
	}
	return false
}

// ToolResult returns the tool_result block answering toolUseID, if present.
func (r Request) ToolResult(toolUseID string) (Content, bool) {
	for _, m := range r.Body.Messages {
		for _, c := range m.Content {
			if c.Type == "tool_result" && c.ToolUseID == toolUseID {
				return c, true
			}
		}
	}
	return Content{}, false
}

// Classify is the default request classifier. Only main-conversation turns
// may consume the script, so everything Claude Code sends on the side must
// be recognised: 2.0.x warms subagents up with a lone "Warmup" message
// (with tools), titles/summaries/quota checks carry no tools or ask for a
// single token.
func Classify(r Request) Kind {
	switch {
	case r.Method != http.MethodPost:
		return KindOther
	case strings.HasSuffix(r.Path, "/count_tokens"):
		return KindCountTokens
	case r.Path != "/v1/messages":
		return KindOther
	case isWarmup(r.Body):
		return KindWarmup
	case len(r.Body.Tools) == 0 || r.Body.MaxTokens == 1:
		return KindSide
	}
	return KindMain
}

func isWarmup(b MessagesRequest) bool {
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

// SystemText is the request's system prompt as plain text, whichever form
// (string or blocks) it came in.
func (r Request) SystemText() string {
	var s string
	if err := json.Unmarshal(r.Body.System, &s); err == nil {
		return s
	}
	var blocks []Content
	if err := json.Unmarshal(r.Body.System, &blocks); err != nil {
		return ""
	}
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

// DefaultSideReply gives the side calls Claude Code is known to make an
// answer in the form they parse, and anything else a short "OK":
//   - Bash command prefix detection (1.x, 2.0): "none", i.e. no prefix,
//     which leaves the permission decision to the allow rules;
//   - Bash output file-path extraction (1.x, 2.0): no paths.
func DefaultSideReply(r Request) string {
	switch {
	case r.ContainsText("<policy_spec>"):
		return "none"
	case strings.Contains(r.SystemText(), "<filepaths>"):
		return "<is_displaying_contents>\nfalse\n</is_displaying_contents>\n\n<filepaths>\n</filepaths>"
	}
	return "OK"
}
