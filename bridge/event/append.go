package event

import (
	"strconv"
	"time"

	"conductorbridge/bridge/jsonbytes"
)

// appendWire appends the wire form of the event types a transcript is
// mostly made of (text, thinking, prompts, tool calls and results,
// status), and of the browser's actions, with no reflection, and reports false for the others, which
// MarshalJSON encodes through wire. A backlog catch-up is hundreds of
// thousands of these, and encoding them was most of its time. The bytes
// are exactly what encoding/json makes of wire (TestAppendWireIsJSON).
func (e *Event) appendWire(b []byte) ([]byte, bool) {
	switch e.Type {
	case Assistant, Thinking, User, ToolUse, ToolResult, Status, Browse:
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
		b = appendText(b, "content", e.Content, "truncated", e.Truncated)
		b = appendField(b, "message_id", e.MessageID)
	case ToolUse:
		b = appendField(b, "name", e.Name)
		b = appendField(b, "tool_use_id", e.ToolUseID)
		b = appendText(b, "input", e.Input, "truncated_input", e.TruncIn)
	case ToolResult:
		b = appendField(b, "name", e.Name)
		b = appendField(b, "tool_use_id", e.ToolUseID)
		b = appendText(b, "output", e.Output, "truncated_output", e.TruncOut)
		b = appendBool(b, "is_error", e.IsError)
	case Status:
		b = appendField(b, "state", e.State)
		b = appendField(b, "reason", e.Reason)
	case Browse:
		b = e.appendBrowse(b)
	}
	return append(b, '}'), true
}

// appendBrowse appends a browse event's own fields, in wire's order
// (duration_ms sits with the turn's fields there, the gap's ids last).
func (e *Event) appendBrowse(b []byte) []byte {
	if e.Action == BrowseEnd {
		b = append(b, `,"duration_ms":`...)
		b = strconv.AppendInt(b, e.DurationMS, 10)
	}
	b = appendField(b, "action", e.Action)
	b = appendField(b, "command", e.Command)
	b = appendField(b, "args", e.Args)
	b = appendField(b, "url", e.URL)
	if e.Action == BrowseEnd || e.Action == BrowseError {
		b = appendBool(b, "ok", e.OK)
	}
	b = appendField(b, "error", e.Error)
	b = appendField(b, "result", e.Result)
	if e.Action == BrowseGap {
		b = append(b, `,"gapFrom":`...)
		b = strconv.AppendInt(b, e.GapFrom, 10)
		b = append(b, `,"availableFrom":`...)
		return strconv.AppendInt(b, e.AvailableFrom, 10)
	}
	b = append(b, `,"browse_id":`...)
	return strconv.AppendInt(b, e.BrowseID, 10)
}

// appendField appends ,"name":"v" unless v is empty (omitempty).
func appendField(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = appendKey(b, name)
	return appendJSONString(b, v)
}

// appendText appends ,"name":"s", empty included, and ,"cutName":cut:
// a text and whether it was cut short.
func appendText(b []byte, name, s, cutName string, cut bool) []byte {
	b = appendKey(b, name)
	b = appendJSONString(b, s)
	return appendBool(b, cutName, cut)
}

// appendBool appends ,"name":v, false included (a pointer on the wire).
func appendBool(b []byte, name string, v bool) []byte {
	b = appendKey(b, name)
	return strconv.AppendBool(b, v)
}

// appendKey appends ,"name": (names here are plain ASCII).
func appendKey(b []byte, name string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// appendJSONString quotes s as encoding/json's Marshal does, HTML's <, >
// and & escaped.
func appendJSONString(b []byte, s string) []byte { return jsonbytes.String(b, s, true) }
