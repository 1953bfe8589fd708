package transcript

import (
	"github.com/valyala/fastjson"

	"conductorbridge/bridge/event"
)

// cut keeps at most event.MaxText runes of b, copying only those.
func cut(b []byte) (string, bool) { return event.CutBytes(b, event.MaxText) }

// inputKeys names, per tool, the one input field a person wants to see
// instead of the whole JSON: the command for Bash, the path for file tools.
var inputKeys = map[string]string{
	"Bash":         "command",
	"Read":         "file_path",
	"Edit":         "file_path",
	"MultiEdit":    "file_path",
	"Write":        "file_path",
	"NotebookEdit": "notebook_path",
	"Glob":         "pattern",
	"Grep":         "pattern",
	"WebFetch":     "url",
	"WebSearch":    "query",
	"Task":         "description",
	"Agent":        "description",
	"Skill":        "skill",
}

// toolInput renders a tool's input readably: the key field where the tool
// has one, compact JSON otherwise.
func toolInput(name string, in *fastjson.Value) (string, bool) {
	if in == nil {
		return "", false
	}
	if key, ok := inputKeys[name]; ok {
		if s := in.GetStringBytes(key); len(s) > 0 {
			return cut(s)
		}
	}
	if in.Type() == fastjson.TypeObject && in.GetObject().Len() == 0 {
		return "", false
	}
	return cut(in.MarshalTo(nil)) // fastjson writes compact JSON
}

// resultText flattens a tool_result's content (a string, or text blocks) to
// text. Images and other non-text blocks are named, not inlined.
func resultText(c *fastjson.Value) (string, bool) {
	if c == nil {
		return "", false
	}
	switch c.Type() {
	case fastjson.TypeString:
		return cut(c.GetStringBytes())
	case fastjson.TypeArray:
		var buf []byte
		skipped := false
		for _, b := range c.GetArray() {
			if len(buf) > event.MaxText*4 { // enough for 500 runes of any script
				skipped = true
				break
			}
			if len(buf) > 0 {
				buf = append(buf, '\n')
			}
			switch t := string(b.GetStringBytes("type")); t {
			case "text":
				buf = append(buf, b.GetStringBytes("text")...)
			default:
				buf = append(buf, '[')
				buf = append(buf, t...)
				buf = append(buf, ']')
			}
		}
		s, truncated := cut(buf)
		return s, truncated || skipped
	}
	return "", false
}
