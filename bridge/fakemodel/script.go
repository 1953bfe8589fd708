package fakemodel

import (
	"encoding/json"
	"time"
)

// Block is one content block of a scripted response.
type Block struct {
	// Type is "text", "thinking" or "tool_use".
	Type string
	// Text is the text of a text block or the reasoning of a thinking block.
	Text string
	// Signature is sent as the thinking block's signature_delta; a fake
	// value is used when empty because Claude Code replays it verbatim.
	Signature string
	// ID is the tool_use id; generated ("toolu_fake0001", …) when empty.
	ID string
	// Name and Input describe a tool_use call. Input is marshalled to JSON.
	Name  string
	Input any
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Thinking returns a thinking block.
func Thinking(s string) Block { return Block{Type: "thinking", Text: s} }

// ToolUse returns a tool_use block calling tool name with input
// (a map, a struct or a json.RawMessage).
func ToolUse(name string, input any) Block {
	return Block{Type: "tool_use", Name: name, Input: input}
}

// Bash returns a tool_use block running command with Claude Code's Bash tool.
func Bash(command string) Block {
	return ToolUse("Bash", map[string]any{"command": command, "description": "Run " + command})
}

// Usage is the token usage a response reports.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// Turn is one scripted model response, consumed by one main-conversation
// request.
type Turn struct {
	Blocks []Block
	// StopReason defaults to "tool_use" when a block calls a tool, else
	// "end_turn".
	StopReason string
	// Usage defaults to a small plausible count when zero.
	Usage Usage
	// Model overrides the model echoed back (default: the request's).
	Model string
	// Delay is waited after the response headers and before message_start,
	// to simulate time to first token.
	Delay time.Duration
	// Hold, when set, keeps a streamed response from starting until it is
	// closed (or the client goes away): a test acts while the model is
	// still "thinking" without betting on a delay being long enough.
	Hold <-chan struct{}
	// ChunkDelay is waited between streamed deltas, to simulate a slow model.
	ChunkDelay time.Duration
	// ChunkRunes is the size of each streamed delta (default 16 runes).
	ChunkRunes int
	// Status, when non-zero, answers with this HTTP status and an API error
	// body of ErrorType (e.g. 529 "overloaded_error") instead of a message.
	Status    int
	ErrorType string
}

// Reply is a convenience constructor for a turn made of blocks.
func Reply(blocks ...Block) Turn { return Turn{Blocks: blocks} }

func (t Turn) stopReason() string {
	if t.StopReason != "" {
		return t.StopReason
	}
	for _, b := range t.Blocks {
		if b.Type == "tool_use" {
			return "tool_use"
		}
	}
	return "end_turn"
}

func (t Turn) usage() Usage {
	if t.Usage == (Usage{}) {
		return Usage{InputTokens: 100, OutputTokens: 20}
	}
	return t.Usage
}

func (t Turn) chunkRunes() int {
	if t.ChunkRunes > 0 {
		return t.ChunkRunes
	}
	return 16
}

// inputJSON renders a tool_use input; an unmarshalable input is a test
// bug, so it degrades to {} rather than failing the stream mid-way.
func (b Block) inputJSON() string {
	if b.Input == nil {
		return "{}"
	}
	if raw, ok := b.Input.(json.RawMessage); ok {
		return string(raw)
	}
	data, err := json.Marshal(b.Input)
	if err != nil {
		return "{}"
	}
	return string(data)
}

// DefaultFallback is the turn served once the script is exhausted.
func DefaultFallback() Turn { return Reply(Text("done")) }
