package api

import (
	"strconv"
	"time"

	"conductorbridge/bridge/jsonbytes"
)

// appendWorkspace appends j's wire form, exactly what encodeCompact gives
// (TestListEncoderIsJSON), without reflection: after a cold start, or
// whenever most workspaces changed at once, the first list call encodes a
// thousand of them, and through encoding/json that alone took 25–30 ms.
// A field added to workspaceJSON or sessionJSON must be added here too;
// the test fails until it is.
func appendWorkspace(b []byte, j *workspaceJSON) ([]byte, bool) {
	h := &j.workspaceHead
	ok := true
	b = append(b, `{"id":`...)
	b = str(b, h.ID)
	b = append(b, `,"name":`...)
	b = str(b, h.Name)
	b = append(b, `,"branch":`...)
	b = str(b, h.Branch)
	b = append(b, `,"directory":`...)
	b = str(b, h.Directory)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(h.PID), 10)
	b = append(b, `,"active":`...)
	b = strconv.AppendBool(b, h.Active)
	b = append(b, `,"repo":`...)
	b = str(b, h.Repo)
	b = append(b, `,"status":`...)
	b = str(b, h.Status)
	b, ok = timeField(b, `,"status_since":`, h.StatusSince, ok)
	b = append(b, `,"session_id":`...)
	b = str(b, h.SessionID)
	b = strField(b, `,"transcript":`, h.Transcript)
	b = append(b, `,"source":`...)
	b = str(b, h.Source)
	b = strField(b, `,"conductor_status":`, h.ConductorStatus)
	b = append(b, `,"last_event_id":`...)
	b = strconv.AppendInt(b, h.LastEventID, 10)
	b = append(b, `,"stream":`...)
	b = str(b, h.Stream)
	b = append(b, `,"skipped_lines":`...)
	b = strconv.AppendInt(b, int64(h.SkippedLines), 10)
	b = append(b, `,"paired":`...)
	b = strconv.AppendBool(b, h.Paired)
	b, ok = timeField(b, `,"paired_at":`, h.PairedAt, ok)
	b, ok = timeField(b, `,"last_hook_at":`, h.LastHookAt, ok)
	b = strField(b, `,"last_hook_event":`, h.LastHookEvent)
	b = append(b, `,"browser":`...)
	b = strconv.AppendBool(b, h.Browser)
	b = append(b, `,"display_name":`...)
	b = str(b, h.DisplayName)
	b = strField(b, `,"workflow":`, h.Workflow)
	b = strField(b, `,"reason":`, h.Reason)
	b = append(b, `,"sessions":`...)
	if j.Sessions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range j.Sessions {
			if i > 0 {
				b = append(b, ',')
			}
			b, ok = appendSession(b, &j.Sessions[i], ok)
		}
		b = append(b, ']')
	}
	return append(b, '}'), ok
}

func appendSession(b []byte, s *sessionJSON, ok bool) ([]byte, bool) {
	b = append(b, `{"session_id":`...)
	b = str(b, s.SessionID)
	b = strField(b, `,"conductor_session_id":`, s.ConductorSessionID)
	b = append(b, `,"agent":`...)
	b = str(b, s.Agent)
	b = append(b, `,"agent_label":`...)
	b = str(b, s.AgentLabel)
	b = append(b, `,"source":`...)
	b = str(b, s.Source)
	b = append(b, `,"title":`...)
	b = str(b, s.Title)
	b = append(b, `,"status":`...)
	b = str(b, s.Status)
	b = strField(b, `,"reason":`, s.Reason)
	b, ok = timeField(b, `,"status_since":`, s.StatusSince, ok)
	b = append(b, `,"active":`...)
	b = strconv.AppendBool(b, s.Active)
	b = append(b, `,"unread":`...)
	b = strconv.AppendInt(b, int64(s.Unread), 10)
	b = append(b, `,"pid":`...)
	b = strconv.AppendInt(b, int64(s.PID), 10)
	b = strField(b, `,"model":`, s.Model)
	b = strField(b, `,"version":`, s.Version)
	b = append(b, `,"streamed":`...)
	b = strconv.AppendBool(b, s.Streamed)
	b = strField(b, `,"messages_blocked":`, s.MessagesBlocked)
	b = append(b, `,"last_event_id":`...)
	b = strconv.AppendInt(b, s.LastEventID, 10)
	b, ok = timeField(b, `,"last_activity":`, s.LastActivity, ok)
	return append(b, '}'), ok
}

// str quotes as the list's encoder does: HTML characters left alone.
func str(b []byte, s string) []byte { return jsonbytes.String(b, s, false) }

// strField appends an omitempty string field.
func strField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return str(append(b, key...), v)
}

// timeField appends an omitzero time field; ok turns false for a time
// encoding/json cannot encode, so the caller falls back to it.
func timeField(b []byte, key string, t time.Time, ok bool) ([]byte, bool) {
	if t.IsZero() {
		return b, ok
	}
	b, good := jsonbytes.Time(append(b, key...), t)
	return b, ok && good
}
