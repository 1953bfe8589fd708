package opencode

import (
	"github.com/valyala/fastjson"

	"conductorbridge/bridge/event"
)

// cut keeps at most event.MaxText runes of b, copying only those.
func cut(b []byte) (string, bool) { return event.CutBytes(b, event.MaxText) }

// toolNames are OpenCode's built-in tools under the names the viewer
// gives a badge (Claude Code's); any other tool keeps its own name.
var toolNames = map[string]string{
	"bash": "Bash", "read": "Read", "edit": "Edit", "write": "Write", "patch": "Edit",
	"apply_patch": "Edit", "multiedit": "MultiEdit", "grep": "Grep", "glob": "Glob", "list": "LS",
	"webfetch": "WebFetch", "websearch": "WebSearch", "task": "Task", "todowrite": "TodoWrite",
	"todoread": "TodoRead", "question": "AskUserQuestion",
}

// toolName is the name a call goes out under.
func toolName(tool string) string {
	if n, ok := toolNames[tool]; ok {
		return n
	}
	return tool
}

// inputKeys is the one input field that says what a built-in call does:
// the command it runs, the file it touches, the pattern it looks for.
var inputKeys = map[string]string{
	"bash": "command", "read": "filePath", "edit": "filePath", "write": "filePath", "multiedit": "filePath",
	"grep": "pattern", "glob": "pattern", "list": "path", "webfetch": "url", "websearch": "query",
	"task": "description",
}

// toolInput renders a call's input: its telling field for a built-in
// tool, compact JSON otherwise, cut.
func toolInput(tool string, input *fastjson.Value) (string, bool) {
	if input == nil || input.Type() != fastjson.TypeObject || input.GetObject().Len() == 0 {
		return "", false
	}
	if key, ok := inputKeys[tool]; ok {
		if s := input.GetStringBytes(key); len(s) > 0 {
			return cut(s)
		}
	}
	return cut(input.MarshalTo(nil))
}
