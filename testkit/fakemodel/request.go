package fakemodel

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// API names the wire protocol a request spoke.
type API string

const (
	// Messages is Anthropic's Messages API (POST /v1/messages).
	Messages API = "messages"
	// Responses is OpenAI's Responses API (POST /responses, /v1/responses).
	Responses API = "responses"
	// Chat is OpenAI's Chat Completions API (POST /chat/completions,
	// /v1/chat/completions), which OpenAI-compatible providers speak.
	Chat API = "chat"
	// Cursor is Cursor's backend as the Cursor SDK calls it (see cursor.go).
	Cursor API = "cursor"
)

// Kind says how the server treated a request.
type Kind string

const (
	// KindMain is a conversation turn (the main agent's or a subagent's):
	// it consumes the script.
	KindMain Kind = "main"
	// KindSide is an auxiliary model call (a title, a summary, a quota
	// check…), answered with Server.SideReply.
	KindSide Kind = "side"
	// KindWarmup is a subagent warm-up call ("Warmup"), sent by Claude Code
	// 2.0.x at start; answered like a side call.
	KindWarmup Kind = "warmup"
	// KindCountTokens is POST /v1/messages/count_tokens.
	KindCountTokens Kind = "count_tokens"
	// KindModels is a model list (GET …/models), answered from Models.
	KindModels Kind = "models"
	// KindOther is anything else (HEAD /api/hello, telemetry, …), answered {}.
	KindOther Kind = "other"
	// KindPoll is a Responses API request whose newest item is the output
	// of a Codex command still running ("Process running with session ID
	// N": exec_command yields after its yield_time_ms, 30 s at most). It is
	// answered as a model waits on a long command, by write_stdin polling
	// that session with nothing to write, and takes no turn of the script:
	// the next scripted answer comes once the command has ended.
	KindPoll Kind = "poll"
)

// Request is one request the server received. Exactly one of Anthropic,
// Responses and Chat is decoded, the one API names; the methods below read
// whichever it is.
type Request struct {
	Seq      int
	Time     time.Time
	Method   string
	Path     string
	RawQuery string
	Header   http.Header
	Raw      []byte
	API      API // "" for a request that is none of the three
	Kind     Kind

	Anthropic MessagesRequest
	Responses ResponsesRequest
	Chat      ChatRequest
	Cursor    CursorRequest
}

// apiOf tells which model API a method and path belong to.
func apiOf(method, path string) API {
	if method != http.MethodPost {
		return ""
	}
	switch strings.TrimPrefix(path, "/v1") {
	case "/messages":
		return Messages
	case "/responses":
		return Responses
	case "/chat/completions":
		return Chat
	}
	return ""
}

// decode fills the API's request body from Raw; a body that does not decode
// (telemetry, a malformed test request) leaves it zero.
func (r *Request) decode() {
	switch r.API {
	case Messages:
		_ = json.Unmarshal(r.Raw, &r.Anthropic)
	case Responses:
		_ = json.Unmarshal(r.Raw, &r.Responses)
	case Chat:
		_ = json.Unmarshal(r.Raw, &r.Chat)
	case Cursor:
		r.decodeCursor()
	}
}

// Model is the model the request asked for.
func (r Request) Model() string {
	switch r.API {
	case Responses:
		return r.Responses.Model
	case Chat:
		return r.Chat.Model
	}
	return r.Anthropic.Model
}

// Streamed reports whether the request asked for a streamed answer.
func (r Request) Streamed() bool {
	switch r.API {
	case Responses:
		return r.Responses.Stream
	case Chat:
		return r.Chat.Stream
	}
	return r.Anthropic.Stream
}

// ToolNames lists the names of the tools offered (a built-in tool of the
// Responses API by its type).
func (r Request) ToolNames() []string {
	var out []string
	switch r.API {
	case Messages:
		for _, t := range r.Anthropic.Tools {
			out = append(out, t.Name)
		}
	case Responses:
		for _, t := range r.Responses.Tools {
			out = append(out, cmp.Or(t.Name, t.Type))
		}
	case Chat:
		for _, t := range r.Chat.Tools {
			out = append(out, cmp.Or(t.Function.Name, t.Type))
		}
	}
	return out
}

// UserTexts lists the text of every user message, in order (Cursor: a
// BidiAppend's prompt, the RunSSE of a turn carries none). A message
// carrying only tool results is left out, and so are the
// <system-reminder> blocks Claude Code adds around prompts; Codex's
// preambles are user messages and stay in.
func (r Request) UserTexts() []string {
	switch r.API {
	case Messages:
		return r.Anthropic.userTexts()
	case Responses:
		return r.Responses.userTexts()
	case Chat:
		return r.Chat.userTexts()
	case Cursor:
		if r.Cursor.Prompt != "" {
			return []string{r.Cursor.Prompt}
		}
	}
	return nil
}

// LastUserText is the text of the last user message, the usual thing to
// assert a prompt reached the model.
func (r Request) LastUserText() string {
	texts := r.UserTexts()
	if len(texts) == 0 {
		return ""
	}
	return texts[len(texts)-1]
}

// ToolOutputs returns the output of each tool call answered in the request,
// by call id (a structured output as its JSON, text blocks joined).
func (r Request) ToolOutputs() map[string]string {
	switch r.API {
	case Messages:
		return r.Anthropic.toolOutputs()
	case Responses:
		return r.Responses.toolOutputs()
	case Chat:
		return r.Chat.toolOutputs()
	}
	return map[string]string{}
}

// ContainsText reports whether any message text or tool output in the
// request's conversation contains s.
func (r Request) ContainsText(s string) bool {
	var texts []string
	switch r.API {
	case Messages:
		texts = r.Anthropic.texts()
	case Responses:
		texts = r.Responses.texts()
	case Chat:
		texts = r.Chat.texts()
	}
	for _, o := range r.ToolOutputs() {
		texts = append(texts, o)
	}
	for _, t := range texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// Contains reports whether the raw body contains s, as JSON would encode
// it (so a test can look for an injected message anywhere in the request).
func (r Request) Contains(s string) bool {
	enc, err := json.Marshal(s)
	if err != nil {
		return false
	}
	return bytes.Contains(r.Raw, enc[1:len(enc)-1])
}

// SystemText is the request's system prompt as plain text (Messages:
// system; Responses: instructions; Chat: the system messages).
func (r Request) SystemText() string {
	switch r.API {
	case Messages:
		return r.Anthropic.systemText()
	case Responses:
		return r.Responses.Instructions
	case Chat:
		return r.Chat.systemText()
	}
	return ""
}

// Classify is the default request classifier. Only conversation turns may
// consume the script, so what agents send on the side must be recognised:
//   - Messages API: Claude Code 2.0.x warms subagents up with a lone
//     "Warmup" message (with tools); titles, summaries and quota checks
//     carry no tools or ask for a single token;
//   - Chat API: a request offering no tools (a title, a summary) is a side
//     call;
//   - Responses API: every request is a turn (Codex makes no side calls),
//     except a poll of a command still running (KindPoll).
func Classify(r Request) Kind {
	if r.API == Cursor {
		return classifyCursor(r)
	}
	switch {
	case r.Method == http.MethodGet && (r.Path == "/models" || r.Path == "/v1/models"):
		return KindModels
	case r.Method == http.MethodPost && r.Path == "/v1/messages/count_tokens":
		return KindCountTokens
	}
	switch r.API {
	case Messages:
		switch {
		case r.Anthropic.isWarmup():
			return KindWarmup
		case len(r.Anthropic.Tools) == 0 || r.Anthropic.MaxTokens == 1:
			return KindSide
		}
		return KindMain
	case Responses:
		if _, ok := r.Responses.running(); ok {
			return KindPoll
		}
		return KindMain
	case Chat:
		if len(r.Chat.Tools) == 0 {
			return KindSide
		}
		return KindMain
	}
	return KindOther
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

// textOf reads a content field that is either a string or an array of
// parts with a "text" field, joining the parts' text with sep; skip leaves
// a part out.
func textOf(raw json.RawMessage, sep string, skip func(text string) bool) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return string(raw)
	}
	var kept []string
	for _, p := range parts {
		if p.Text != "" && (skip == nil || !skip(p.Text)) {
			kept = append(kept, p.Text)
		}
	}
	return strings.Join(kept, sep)
}
