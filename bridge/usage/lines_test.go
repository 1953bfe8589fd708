package usage

import "testing"

func TestTopLevelString(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"type":"assistant","timestamp":"2026-12-02T10:00:00.000Z"}`, "2026-12-02T10:00:00.000Z"},
		// A relayed message's own time comes first; the record's counts.
		{`{"type":"progress","data":{"message":{"timestamp":"2026-01-01T00:00:00.000Z"}},"timestamp":"2026-12-02T10:00:01.000Z"}`, "2026-12-02T10:00:01.000Z"},
		// The key inside a string (a tool's output) is not a key.
		{`{"message":{"content":"{\"timestamp\":\"1999\"}  \\"},"timestamp" : "2026-12-02T10:00:02.000Z"}`, "2026-12-02T10:00:02.000Z"},
		{`{"message":["timestamp","x"],"uuid":"u"}`, ""},
		{`{"timestamp":12}`, ""},
		{`{"timestamp":"unterminated`, ""},
		{`["timestamp","2026"]`, ""},
		{``, ""},
	} {
		if got := string(topLevelString([]byte(tt.line), "timestamp")); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestTimestampOf(t *testing.T) {
	for _, tt := range []struct{ line, want string }{
		{`{"type":"user","message":{"content":"say \"timestamp\":\"1999\""},"timestamp":"2026-12-02T10:00:00.000Z"}`, "2026-12-02T10:00:00.000Z"},
		{`{"type":"progress","data":{"message":{"timestamp":"2026-01-01T00:00:00.000Z"}},"timestamp":"2026-12-02T10:00:01.000Z"}`, "2026-12-02T10:00:01.000Z"},
		{`{"type":"summary"}`, ""},
	} {
		if got := string(timestampOf([]byte(tt.line))); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.line, got, tt.want)
		}
	}
}
