package fakeopenai

import (
	"encoding/json"
	"time"
)

// Item is one output item of a scripted response.
type Item struct {
	// Type is "message", "reasoning", "function_call", "custom_tool_call"
	// or "web_search_call" (the API's own search: Text is the query).
	Type string
	// Text is a message's text or a reasoning item's summary.
	Text string
	// ID is the item id; generated ("msg_fake0001_0", …) when empty.
	ID string
	// CallID is the tool call id; generated ("call_fake0001_0") when empty.
	CallID string
	// Name is the tool called by a function_call or custom_tool_call.
	Name string
	// Arguments is a function_call's arguments, marshalled to a JSON
	// string (the API sends arguments as a string of JSON).
	Arguments any
	// Input is a custom_tool_call's free-form input (apply_patch's patch).
	Input string
}

// Message returns an assistant message item.
func Message(text string) Item { return Item{Type: "message", Text: text} }

// Reasoning returns a reasoning item carrying one summary part.
func Reasoning(summary string) Item { return Item{Type: "reasoning", Text: summary} }

// WebSearch returns a web_search_call item searching for query, as the
// API reports a search it ran itself.
func WebSearch(query string) Item { return Item{Type: "web_search_call", Text: query} }

// FunctionCall returns a function_call item calling tool name with args
// (a map, a struct or a json.RawMessage).
func FunctionCall(name string, args any) Item {
	return Item{Type: "function_call", Name: name, Arguments: args}
}

// CustomToolCall returns a custom_tool_call item (a freeform tool such as
// apply_patch in recent releases).
func CustomToolCall(name, input string) Item {
	return Item{Type: "custom_tool_call", Name: name, Input: input}
}

// Shell returns the call of Codex's shell tool for command, in the form the
// request offered: "shell_command" ({"command": "…"}), "exec_command"
// (unified exec: {"cmd": …}), or "shell" (0.47: {"command":
// ["bash","-lc", …]}). Tools lists the names the request offered.
func Shell(tools []string, command string) Item {
	has := func(n string) bool {
		for _, t := range tools {
			if t == n {
				return true
			}
		}
		return false
	}
	switch {
	case has("shell_command"):
		return FunctionCall("shell_command", map[string]any{"command": command})
	case has("exec_command"):
		return FunctionCall("exec_command", map[string]any{"cmd": command, "yield_time_ms": 10000})
	default:
		return FunctionCall("shell", map[string]any{"command": []string{"bash", "-lc", command}})
	}
}

// ApplyPatch returns the call of Codex's apply_patch tool in the form the
// request offered: a freeform custom tool when its definition has type
// "custom", a function with {"input": patch} otherwise, or, when the
// request offers no apply_patch tool at all, the shell form Codex also
// intercepts (["apply_patch", patch]).
func ApplyPatch(r Request, patch string) Item {
	for _, t := range r.Body.Tools {
		if t.Name != "apply_patch" {
			continue
		}
		if t.Type == "custom" {
			return CustomToolCall("apply_patch", patch)
		}
		return FunctionCall("apply_patch", map[string]any{"input": patch})
	}
	return FunctionCall("shell", map[string]any{"command": []string{"apply_patch", patch}})
}

// Usage is the token usage a response reports, in OpenAI's convention:
// InputTokens includes CachedTokens, OutputTokens includes ReasoningTokens.
type Usage struct {
	InputTokens     int
	CachedTokens    int
	OutputTokens    int
	ReasoningTokens int
}

func (u Usage) wire() map[string]any {
	return map[string]any{
		"input_tokens":          u.InputTokens,
		"input_tokens_details":  map[string]any{"cached_tokens": u.CachedTokens},
		"output_tokens":         u.OutputTokens,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
		"total_tokens":          u.InputTokens + u.OutputTokens,
	}
}

// Turn is one scripted model response, consumed by one request.
type Turn struct {
	Items []Item
	// Build, when set, makes the items from the request (e.g. to call the
	// shell tool under the name the request offers); it replaces Items.
	Build func(Request) []Item
	// Usage defaults to a small plausible count when zero.
	Usage Usage
	// Model overrides the model echoed back (default: the request's).
	Model string
	// Delay is waited after the response headers and before
	// response.created, to simulate time to first token.
	Delay time.Duration
	// ChunkDelay is waited between streamed deltas.
	ChunkDelay time.Duration
	// ChunkRunes is the size of each streamed delta (default 16 runes).
	ChunkRunes int
	// Status, when non-zero, answers with this HTTP status and an error
	// body instead of a stream.
	Status int
	// Fail, when set, ends the stream with response.failed carrying this
	// message instead of response.completed.
	Fail string
}

// Reply is a convenience constructor for a turn made of items.
func Reply(items ...Item) Turn { return Turn{Items: items} }

// Build is a convenience constructor for a turn built from its request.
func Build(f func(Request) []Item) Turn { return Turn{Build: f} }

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

// argumentsJSON renders a function_call's arguments; an unmarshalable value
// is a test bug, so it degrades to {} rather than failing the stream.
func (it Item) argumentsJSON() string {
	if it.Arguments == nil {
		return "{}"
	}
	if raw, ok := it.Arguments.(json.RawMessage); ok {
		return string(raw)
	}
	if s, ok := it.Arguments.(string); ok {
		return s
	}
	data, err := json.Marshal(it.Arguments)
	if err != nil {
		return "{}"
	}
	return string(data)
}

// DefaultFallback is the turn served once the script is exhausted.
func DefaultFallback() Turn { return Reply(Message("done")) }
