package fakemodel

import (
	"encoding/json"
	"slices"
	"time"
)

// Block is one piece of a scripted answer. Each API renders it in its own
// wire form (see the package doc for the table).
type Block struct {
	// Type is "text", "thinking", "tool_use", "custom_tool" or "web_search".
	Type string
	// Text is a text block's text, a thinking block's reasoning (the
	// Responses API: a reasoning summary) or a web search's query.
	Text string
	// Signature is sent as the thinking block's signature_delta (Messages
	// API); a fake value is used when empty because Claude Code replays it.
	Signature string
	// ID is the tool call's id as the client sees it (Messages: the
	// tool_use id; Responses: call_id; Chat: tool_calls[].id); generated
	// ("toolu_fake0001_0", "call_fake0001_0") when empty.
	ID string
	// Name is the tool called.
	Name string
	// Input is a tool_use's input (a map, a struct, a json.RawMessage or a
	// string of JSON), or a custom_tool's free-form text input.
	Input any
	// Output is a tool call's result where the backend reports it, not the
	// client (Cursor's tool_call_completed: a read's content, a shell's
	// stdout); the other APIs leave it out.
	Output string
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: "text", Text: s} }

// Thinking returns a thinking block (a reasoning item on the Responses API,
// reasoning_content on the Chat API).
func Thinking(s string) Block { return Block{Type: "thinking", Text: s} }

// ToolUse returns a call of tool name with input (a map, a struct or a
// json.RawMessage).
func ToolUse(name string, input any) Block {
	return Block{Type: "tool_use", Name: name, Input: input}
}

// CustomTool returns a call of a free-form tool (the Responses API's
// custom_tool_call, such as Codex's apply_patch); the other APIs get a
// tool call with {"input": input}.
func CustomTool(name, input string) Block {
	return Block{Type: "custom_tool", Name: name, Input: input}
}

// WebSearch returns a search the model ran itself (the Responses API's
// web_search_call); the other APIs leave it out.
func WebSearch(query string) Block { return Block{Type: "web_search", Text: query} }

// Bash returns a tool_use block running command with Claude Code's Bash tool.
func Bash(command string) Block {
	return ToolUse("Bash", map[string]any{"command": command, "description": "Run " + command})
}

// Shell returns the call of Codex's shell tool for command, in the form the
// request offered: "shell_command" ({"command": "…"}), "exec_command"
// (unified exec: {"cmd": …}), or "shell" (0.47: {"command":
// ["bash","-lc", …]}). Tools lists the names the request offered
// (Request.ToolNames).
func Shell(tools []string, command string) Block {
	switch {
	case slices.Contains(tools, "shell_command"):
		return ToolUse("shell_command", map[string]any{"command": command})
	case slices.Contains(tools, "exec_command"):
		return ToolUse("exec_command", map[string]any{"cmd": command, "yield_time_ms": 10000})
	default:
		return ToolUse("shell", map[string]any{"command": []string{"bash", "-lc", command}})
	}
}

// ApplyPatch returns the call of Codex's apply_patch tool in the form the
// request offered: a free-form custom tool when its definition has type
// "custom", a function with {"input": patch} otherwise, or, when the
// request offers no apply_patch tool at all, the shell form Codex also
// intercepts (["apply_patch", patch]).
func ApplyPatch(r Request, patch string) Block {
	for _, t := range r.Responses.Tools {
		if t.Name != "apply_patch" {
			continue
		}
		if t.Type == "custom" {
			return CustomTool("apply_patch", patch)
		}
		return ToolUse("apply_patch", map[string]any{"input": patch})
	}
	return ToolUse("shell", map[string]any{"command": []string{"apply_patch", patch}})
}

// Usage is the token usage a response reports, in the Messages API's
// convention: InputTokens is input read neither from nor into the cache,
// OutputTokens all output (ReasoningTokens is the part of it spent
// reasoning). The OpenAI APIs get input_tokens = InputTokens +
// CacheReadInputTokens + CacheCreationInputTokens with cached_tokens =
// CacheReadInputTokens, and reasoning_tokens = ReasoningTokens.
type Usage struct {
	InputTokens              int
	CacheCreationInputTokens int
	CacheReadInputTokens     int
	OutputTokens             int
	ReasoningTokens          int
}

// openAIInput is the input count as the OpenAI APIs report it.
func (u Usage) openAIInput() int {
	return u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
}

// Turn is one scripted model response, consumed by one main request.
type Turn struct {
	Blocks []Block
	// Build, when set, makes the blocks from the request (e.g. to call the
	// shell tool under the name the request offers); it replaces Blocks.
	Build func(Request) []Block
	// StopReason (Messages API) defaults to "tool_use" when a block calls a
	// tool, else "end_turn"; the Chat API maps it to finish_reason.
	StopReason string
	// Usage defaults to a small plausible count when zero.
	Usage Usage
	// Model overrides the model echoed back (default: the request's).
	Model string
	// Delay is waited after the response headers and before the first
	// event, to simulate time to first token.
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
	// body of ErrorType (e.g. 529 "overloaded_error") instead of an answer.
	Status    int
	ErrorType string
	// Fail, when set, ends a streamed answer with the API's in-stream error
	// (Responses: response.failed) carrying this message.
	Fail string

	noUsage bool // reports zero tokens (a poll, which no test counts)
}

// Reply is a convenience constructor for a turn made of blocks.
func Reply(blocks ...Block) Turn { return Turn{Blocks: blocks} }

// Build is a convenience constructor for a turn built from its request.
func Build(f func(Request) []Block) Turn { return Turn{Build: f} }

// DefaultFallback is the turn served once the script is exhausted.
func DefaultFallback() Turn { return Reply(Text("done")) }

// blocks is what the turn answers r with.
func (t Turn) blocks(r Request) []Block {
	if t.Build != nil {
		return t.Build(r)
	}
	return t.Blocks
}

func (t Turn) usage() Usage {
	if t.Usage == (Usage{}) && !t.noUsage {
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

// isCall reports whether the block calls a tool the client runs.
func (b Block) isCall() bool { return b.Type == "tool_use" || b.Type == "custom_tool" }

// inputJSON renders a tool call's input as JSON (a custom_tool's as
// {"input": …}); an unmarshalable input is a test bug, so it degrades to {}
// rather than failing the stream mid-way.
func (b Block) inputJSON() string {
	in := b.Input
	if b.Type == "custom_tool" {
		in = map[string]any{"input": b.Input}
	}
	switch v := in.(type) {
	case nil:
		return "{}"
	case json.RawMessage:
		return string(v)
	case string:
		return v
	}
	data, err := json.Marshal(in)
	if err != nil {
		return "{}"
	}
	return string(data)
}

// freeform is a custom_tool's text input.
func (b Block) freeform() string {
	s, _ := b.Input.(string)
	return s
}

func (b Block) signature() string {
	if b.Signature != "" {
		return b.Signature
	}
	return "ZmFrZS1zaWduYXR1cmU=" // base64("fake-signature"): opaque to Claude Code
}
