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
// A field added to Workspace or Session must be added here too;
// the test fails until it is.
func appendWorkspace(b []byte, j *Workspace) ([]byte, bool) {
	h := &j.WorkspaceHead
	ok := true
	b = keyStr(b, `{"id":`, h.ID)
	b = keyStr(b, `,"name":`, h.Name)
	b = keyStr(b, `,"branch":`, h.Branch)
	b = keyStr(b, `,"directory":`, h.Directory)
	b = keyInt(b, `,"pid":`, int64(h.PID))
	b = keyBool(b, `,"active":`, h.Active)
	b = keyStr(b, `,"repo":`, h.Repo)
	b = keyStr(b, `,"status":`, h.Status)
	b, ok = timeField(b, `,"status_since":`, h.StatusSince, ok)
	b = keyStr(b, `,"session_id":`, h.SessionID)
	b = strField(b, `,"transcript":`, h.Transcript)
	b = keyStr(b, `,"source":`, h.Source)
	b = strField(b, `,"conductor_status":`, h.ConductorStatus)
	b = keyInt(b, `,"last_event_id":`, h.LastEventID)
	b = keyStr(b, `,"stream":`, h.Stream)
	b = keyInt(b, `,"skipped_lines":`, int64(h.SkippedLines))
	b = keyBool(b, `,"paired":`, h.Paired)
	b, ok = timeField(b, `,"paired_at":`, h.PairedAt, ok)
	b, ok = timeField(b, `,"last_hook_at":`, h.LastHookAt, ok)
	b = strField(b, `,"last_hook_event":`, h.LastHookEvent)
	b = keyBool(b, `,"browser":`, h.Browser)
	b = keyStr(b, `,"display_name":`, h.DisplayName)
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

func appendSession(b []byte, s *Session, ok bool) ([]byte, bool) {
	b = keyStr(b, `{"session_id":`, s.SessionID)
	b = strField(b, `,"conductor_session_id":`, s.ConductorSessionID)
	b = keyStr(b, `,"agent":`, s.Agent)
	b = keyStr(b, `,"agent_label":`, s.AgentLabel)
	b = keyStr(b, `,"source":`, s.Source)
	b = keyStr(b, `,"title":`, s.Title)
	b = keyStr(b, `,"status":`, s.Status)
	b = strField(b, `,"reason":`, s.Reason)
	b, ok = timeField(b, `,"status_since":`, s.StatusSince, ok)
	b = keyBool(b, `,"active":`, s.Active)
	b = keyInt(b, `,"unread":`, int64(s.Unread))
	b = keyInt(b, `,"pid":`, int64(s.PID))
	b = strField(b, `,"model":`, s.Model)
	b = strField(b, `,"version":`, s.Version)
	b = keyBool(b, `,"streamed":`, s.Streamed)
	b = strField(b, `,"messages_blocked":`, s.MessagesBlocked)
	b = keyInt(b, `,"last_event_id":`, s.LastEventID)
	b, ok = timeField(b, `,"last_activity":`, s.LastActivity, ok)
	return append(b, '}'), ok
}

// str quotes as the list's encoder does: HTML characters left alone.
func str(b []byte, s string) []byte { return jsonbytes.String(b, s, false) }

// keyStr, keyInt and keyBool append key and v, whatever v is.
func keyStr(b []byte, key, v string) []byte { return str(append(b, key...), v) }

func keyInt(b []byte, key string, v int64) []byte {
	return strconv.AppendInt(append(b, key...), v, 10)
}

func keyBool(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(append(b, key...), v)
}

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
