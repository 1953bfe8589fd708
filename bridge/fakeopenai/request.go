package fakeopenai

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"
)

// Kind says how the server treated a request.
type Kind string

const (
	// KindMain is a Responses API call: it consumes the script.
	KindMain Kind = "main"
	// KindModels is a model list (GET …/models), answered from Models.
	KindModels Kind = "models"
	// KindOther is anything else, answered with {}.
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
	// Body is Raw decoded as a Responses API request (zero when not JSON).
	Body ResponsesRequest
	Kind Kind
}

// ResponsesRequest is the part of a Responses API request body tests look
// at; Raw keeps everything.
type ResponsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Stream       bool            `json:"stream"`
	Input        []InputItem     `json:"input"`
	Tools        []Tool          `json:"tools,omitempty"`
	Reasoning    json.RawMessage `json:"reasoning,omitempty"`
	Store        bool            `json:"store"`
	PromptCache  string          `json:"prompt_cache_key,omitempty"`
}

// Tool is a tool definition offered to the model. Built-in tools
// (web_search, local_shell) have a Type and no Name.
type Tool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// InputItem is one item of the conversation sent back to the model.
type InputItem struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	CallID string          `json:"call_id"`
	Name   string          `json:"name"`
	Output json.RawMessage `json:"output"`
}

// Text joins the text parts of a message item.
func (it InputItem) Text() string {
	var b bytes.Buffer
	for _, c := range it.Content {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(c.Text)
	}
	return b.String()
}

// ToolNames lists the names of the tools offered (a built-in tool by its
// type).
func (r Request) ToolNames() []string {
	var out []string
	for _, t := range r.Body.Tools {
		if t.Name != "" {
			out = append(out, t.Name)
		} else {
			out = append(out, t.Type)
		}
	}
	return out
}

// UserTexts lists the text of every user message in the request's input,
// in order (Codex's preambles included).
func (r Request) UserTexts() []string {
	var out []string
	for _, it := range r.Body.Input {
		if (it.Type == "message" || it.Type == "") && it.Role == "user" {
			out = append(out, it.Text())
		}
	}
	return out
}

// Outputs returns the output of each tool call answered in the request, by
// call id (function_call_output and custom_tool_call_output alike; a
// structured output is returned as its JSON).
func (r Request) Outputs() map[string]string {
	out := map[string]string{}
	for _, it := range r.Body.Input {
		if it.CallID == "" || len(it.Output) == 0 {
			continue
		}
		var s string
		if err := json.Unmarshal(it.Output, &s); err == nil {
			out[it.CallID] = s
		} else {
			out[it.CallID] = string(it.Output)
		}
	}
	return out
}

// Contains reports whether the raw body contains s, as JSON would encode
// it (so a test can look for an injected message anywhere in the input).
func (r Request) Contains(s string) bool {
	enc, err := json.Marshal(s)
	if err != nil {
		return false
	}
	return bytes.Contains(r.Raw, enc[1:len(enc)-1])
}

// Classify sorts requests: POST …/responses is a model call, GET …/models
// a model list, anything else other.
func Classify(r Request) Kind {
	switch {
	case r.Method == http.MethodPost && (r.Path == "/responses" || r.Path == "/v1/responses"):
		return KindMain
	case r.Method == http.MethodGet && (r.Path == "/models" || r.Path == "/v1/models"):
		return KindModels
	}
	return KindOther
}
