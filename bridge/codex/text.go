package codex

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/event"
)

// cut keeps at most event.MaxText runes of b, copying only those.
func cut(b []byte) (string, bool) { return event.CutBytes(b, event.MaxText) }

func cutString(s string) (string, bool) { return event.Cut(s, event.MaxText) }

// joinText joins the field key of each part (message content, reasoning
// summary), stopping once enough is gathered for the cut.
func joinText(parts []*fastjson.Value, key, sep string) []byte {
	var buf []byte
	for _, c := range parts {
		t := c.GetStringBytes(key)
		if len(t) == 0 {
			continue
		}
		if len(buf) > 0 {
			buf = append(buf, sep...)
		}
		buf = append(buf, t...)
		if len(buf) > event.MaxText*4 { // enough for 500 runes of any script
			break
		}
	}
	return buf
}

// shells are the interpreters Codex wraps a model's command in
// (["bash", "-lc", "…"]); the reader wants the command itself.
var shells = map[string]bool{"bash": true, "/bin/bash": true, "/usr/bin/bash": true, "sh": true, "/bin/sh": true,
	"zsh": true, "/bin/zsh": true, "/usr/bin/zsh": true}

// commandText renders a command given as an argv array or a string.
func commandText(v *fastjson.Value) (string, []string) {
	if v == nil {
		return "", nil
	}
	if v.Type() == fastjson.TypeString {
		return string(v.GetStringBytes()), nil
	}
	items := v.GetArray()
	if len(items) == 3 && shells[string(items[0].GetStringBytes())] {
		if flag := string(items[1].GetStringBytes()); flag == "-lc" || flag == "-c" {
			return string(items[2].GetStringBytes()), nil // the common case, without the argv
		}
	}
	argv := make([]string, 0, len(items))
	for _, a := range items {
		argv = append(argv, string(a.GetStringBytes()))
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`") {
			a = strconv.Quote(a)
		}
		quoted[i] = a
	}
	return strings.Join(quoted, " "), argv
}

// toolView names a call the way a reader expects and renders its input:
// the command for shell tools, the paths for patches, compact JSON
// otherwise. args is a function call's arguments (a JSON text) or a custom
// tool's free-form input.
func toolView(name string, args []byte, custom bool) (string, string) {
	if custom {
		if name == "apply_patch" {
			return ToolPatch, patchPaths(args)
		}
		s, _ := cut(args)
		return name, s
	}
	jp := parsers.Get()
	defer parsers.Put(jp)
	v, err := jp.ParseBytes(args)
	if err != nil || v.Type() != fastjson.TypeObject {
		s, _ := cut(args)
		return name, s
	}
	switch name {
	case "shell", "container.exec", "local_shell":
		cmd, argv := commandText(v.Get("command"))
		if len(argv) == 2 && argv[0] == "apply_patch" { // Codex intercepts this form
			return ToolPatch, patchPaths([]byte(argv[1]))
		}
		return ToolShell, cmd
	case "shell_command":
		cmd, _ := commandText(v.Get("command"))
		return ToolShell, cmd
	case "exec_command":
		cmd, _ := commandText(v.Get("cmd"))
		return ToolShell, cmd
	case "apply_patch":
		return ToolPatch, patchPaths(v.GetStringBytes("input"))
	case "write_stdin":
		return name, string(v.GetStringBytes("chars"))
	}
	if v.GetObject().Len() == 0 {
		return name, ""
	}
	s, _ := cut(v.MarshalTo(nil)) // fastjson writes compact JSON
	return name, s
}

// patchMarkers start the lines of an apply_patch envelope that name a file.
var patchMarkers = [][]byte{
	[]byte("*** Add File: "), []byte("*** Update File: "), []byte("*** Delete File: "), []byte("*** Move to: "),
}

// patchPaths lists the files a patch touches, one per line, in order.
func patchPaths(patch []byte) string {
	var paths []string
	for line := range bytes.Lines(patch) {
		for _, m := range patchMarkers {
			if bytes.HasPrefix(line, m) {
				paths = append(paths, string(bytes.TrimSpace(line[len(m):])))
			}
		}
	}
	return strings.Join(paths, "\n")
}

// resultText extracts a tool output's readable text and whether the call
// failed. Outputs come as
//   - a JSON text {"output": …, "metadata": {"exit_code": N}} (0.47 shell
//     and apply_patch),
//   - plain text with a header ("Chunk ID: …\nWall time: …\nProcess exited
//     with code N\n…\nOutput:\n…" for 0.169's exec_command, "Exit code:
//     N\nWall time: …\nOutput:\n…" for its apply_patch),
//   - an array of content items, or {"content", "success"}.
func resultText(v *fastjson.Value) ([]byte, bool) {
	if v == nil {
		return nil, false
	}
	switch v.Type() {
	case fastjson.TypeString:
		s := v.GetStringBytes()
		if len(s) > 0 && (s[0] == '{' || s[0] == '[') {
			if text, failed, ok := wrappedOutput(s); ok {
				return text, failed
			}
		}
		return headed(s)
	case fastjson.TypeArray:
		return joinText(v.GetArray(), "text", "\n"), false
	case fastjson.TypeObject:
		text, _ := resultText(v.Get("content"))
		failed := false
		if s := v.Get("success"); s != nil && s.Type() == fastjson.TypeFalse {
			failed = true
		}
		return text, failed
	}
	return nil, false
}

// wrappedOutput reads the JSON texts 0.47 writes as outputs: {"output",
// "metadata": {"exit_code"}} for shell and apply_patch, an MCP result's
// content items [{"type": "text", "text"}] for MCP tools.
func wrappedOutput(s []byte) ([]byte, bool, bool) {
	jp := parsers.Get()
	defer parsers.Put(jp)
	w, err := jp.ParseBytes(s)
	if err == nil && w.Type() == fastjson.TypeArray {
		items := w.GetArray()
		for _, it := range items {
			if it.Type() != fastjson.TypeObject || it.Get("type") == nil {
				return nil, false, false // a command that printed a JSON array
			}
		}
		return append([]byte(nil), joinText(items, "text", "\n")...), false, true
	}
	if err != nil || w.Type() != fastjson.TypeObject || w.Get("output") == nil {
		return nil, false, false
	}
	// Copy only what the cut can keep (4 bytes a rune at most, plus one
	// so a longer text still reads as truncated): the parser's buffer is
	// reused when this returns.
	text := w.GetStringBytes("output")
	if len(text) > event.MaxText*4+1 {
		text = text[:event.MaxText*4+1]
	}
	text = append([]byte(nil), text...)
	code := w.Get("metadata", "exit_code")
	return text, code != nil && code.GetInt() != 0, true
}

var (
	outputMark  = []byte("\nOutput:\n")
	exitedMark  = []byte("Process exited with code ")
	exitCodeKey = []byte("Exit code: ")
)

// headed strips 0.169's header from a tool output and reads the exit code
// in it. Text without that header is returned whole.
func headed(s []byte) ([]byte, bool) {
	head := s
	if len(head) > 512 {
		head = head[:512]
	}
	i := bytes.Index(head, outputMark)
	if i < 0 || !(bytes.HasPrefix(s, []byte("Chunk ID: ")) || bytes.HasPrefix(s, exitCodeKey) || bytes.HasPrefix(s, []byte("Wall time: "))) {
		return s, false
	}
	failed := false
	for _, line := range bytes.Split(head[:i], []byte("\n")) {
		var num []byte
		switch {
		case bytes.HasPrefix(line, exitedMark):
			num = line[len(exitedMark):]
		case bytes.HasPrefix(line, exitCodeKey):
			num = line[len(exitCodeKey):]
		default:
			continue
		}
		if n, err := strconv.Atoi(string(bytes.TrimSpace(num))); err == nil && n != 0 {
			failed = true
		}
	}
	return s[i+len(outputMark):], failed
}
