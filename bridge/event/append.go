package event

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// appendWire appends the wire form of the event types a transcript is
// mostly made of (text, thinking, prompts, tool calls and results,
// status) with no reflection, and reports false for the others, which
// MarshalJSON encodes through wire. A backlog catch-up is hundreds of
// thousands of these, and encoding them was most of its time. The bytes
// are exactly what encoding/json makes of wire (TestAppendWireIsJSON).
func (e *Event) appendWire(b []byte) ([]byte, bool) {
	switch e.Type {
	case Assistant, Thinking, User, ToolUse, ToolResult, Status:
	default:
		return b, false
	}
	b = append(b, `{"type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"id":`...)
	b = strconv.AppendInt(b, e.ID, 10)
	if !e.TS.IsZero() {
		b = append(b, `,"ts":"`...)
		b = e.TS.UTC().AppendFormat(b, time.RFC3339Nano) // digits, letters and signs: nothing to escape
		b = append(b, '"')
	}
	b = appendField(b, "session_id", e.SessionID)
	b = appendField(b, "agent", e.Agent)
	if e.Sidechain {
		b = append(b, `,"sidechain":true`...)
	}
	if e.System && (e.Type == Assistant || e.Type == Thinking || e.Type == User) {
		b = append(b, `,"system":true`...)
	}
	switch e.Type {
	case Assistant, Thinking, User:
		b = append(b, `,"content":`...)
		b = appendJSONString(b, e.Content)
		b = appendBool(b, "truncated", e.Truncated)
		b = appendField(b, "message_id", e.MessageID)
	case ToolUse:
		b = appendField(b, "name", e.Name)
		b = appendField(b, "tool_use_id", e.ToolUseID)
		b = append(b, `,"input":`...)
		b = appendJSONString(b, e.Input)
		b = appendBool(b, "truncated_input", e.TruncIn)
	case ToolResult:
		b = appendField(b, "name", e.Name)
		b = appendField(b, "tool_use_id", e.ToolUseID)
		b = append(b, `,"output":`...)
		b = appendJSONString(b, e.Output)
		b = appendBool(b, "truncated_output", e.TruncOut)
		b = appendBool(b, "is_error", e.IsError)
	case Status:
		b = appendField(b, "state", e.State)
		b = appendField(b, "reason", e.Reason)
	}
	return append(b, '}'), true
}

// appendField appends ,"name":"v" unless v is empty (omitempty).
func appendField(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendJSONString(b, v)
}

// appendBool appends ,"name":v, false included (a pointer on the wire).
func appendBool(b []byte, name string, v bool) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendBool(b, v)
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does by default: HTML's <, >
// and & escaped, invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029
// escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
