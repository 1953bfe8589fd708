package cursor

import (
	"strings"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/event"
)

// Call is one tool call message as Cursor writes it: the SDK's tool_call
// {call_id, name, status, args, result}, or the CLI's {subtype, call_id,
// tool_call: {readToolCall: {args, result}}}. The same call is written
// again as it runs and when it is done.
type Call struct {
	ID, Name string
	Input    string // its telling argument, cut
	TruncIn  bool
	// Done: the call finished (completed or failed); Output and IsError
	// say how.
	Done     bool
	Output   string
	TruncOut bool
	IsError  bool
}

// ReadCall reads a tool call message.
func ReadCall(v *fastjson.Value) Call {
	c := Call{ID: string(v.GetStringBytes("call_id")), Name: string(v.GetStringBytes("name"))}
	args, result := v.Get("args"), v.Get("result")
	status := string(v.GetStringBytes("status"))
	if tc := v.GetObject("tool_call"); tc != nil {
		tc.Visit(func(k []byte, call *fastjson.Value) {
			c.Name, args, result = ToolName(string(k)), call.Get("args"), call.Get("result")
		})
		if status = "running"; string(v.GetStringBytes("subtype")) == "completed" {
			status = "completed"
		}
	}
	c.Input, c.TruncIn = agent.ToolInput(args)
	if status != "completed" && status != "error" {
		return c
	}
	c.Done, c.IsError = true, status == "error"
	if result != nil {
		switch {
		case result.Get("error") != nil:
			result, c.IsError = result.Get("error"), true
		case result.Get("success") != nil:
			result = result.Get("success")
		case result.Get("value") != nil: // the SDK's {status: "success"|…, value}
			c.IsError = c.IsError || string(result.GetStringBytes("status")) == "error"
			result = result.Get("value")
		}
	}
	c.Output, c.TruncOut = Output(result)
	return c
}

// ToolName names a CLI tool call by its key: shellToolCall is Bash, as the
// viewer badges it; readToolCall is Read.
func ToolName(key string) string {
	key = strings.TrimSuffix(key, "ToolCall")
	switch key {
	case "shell":
		return "Bash"
	case "":
		return "tool"
	}
	return strings.ToUpper(key[:1]) + key[1:]
}

// Output is a tool result as text: its content, output or stdout when it
// has one, else the JSON.
func Output(r *fastjson.Value) (string, bool) {
	if r != nil && r.Type() == fastjson.TypeObject {
		for _, k := range []string{"content", "output", "stdout", "message", "text"} {
			if s := r.Get(k); s != nil && s.Type() == fastjson.TypeString {
				return event.CutBytes(s.GetStringBytes(), event.MaxText)
			}
		}
	}
	return agent.ResultText(r)
}

// Tokens reads a usage message's or a run's token counts
// ({inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}).
func Tokens(u *fastjson.Value) event.Usage {
	return event.Usage{
		InputTokens:         event.Tokens(u.GetInt64("inputTokens")),
		OutputTokens:        event.Tokens(u.GetInt64("outputTokens")),
		CacheReadTokens:     event.Tokens(u.GetInt64("cacheReadTokens")),
		CacheCreationTokens: event.Tokens(u.GetInt64("cacheWriteTokens")),
	}
}

// RunEnd tells what a run's status says of its turn: ended when the run is
// over (FINISHED, ERROR, EXPIRED, CANCELLED), stopped when the person
// stopped it (CANCELLED), working while it is made or runs. The store
// writes statuses in upper case, the run stream's result in lower.
func RunEnd(status string) (ended, stopped, working bool) {
	switch strings.ToUpper(status) {
	case "FINISHED", "ERROR", "EXPIRED":
		return true, false, false
	case "CANCELLED":
		return true, true, false
	case "RUNNING", "CREATING":
		return false, false, true
	}
	return false, false, false
}
