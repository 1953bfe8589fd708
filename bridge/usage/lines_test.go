package usage

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

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

// TestIndexKeyIsBytesIndex wants indexKey to find exactly what
// bytes.Index finds: at the corpus's lines, and at random mixes of quotes,
// key fragments and text, where near misses abound.
func TestIndexKeyIsBytesIndex(t *testing.T) {
	var lines [][]byte
	files, _ := filepath.Glob("../transcript/testdata/corpus/*/*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	if len(lines) < 100 {
		t.Fatalf("only %d corpus lines", len(lines))
	}
	r := rand.New(rand.NewPCG(1, 2))
	parts := []string{`"`, `"timestamp":"`, `"timestamp"`, `timestamp":"`, `"timestam`, `\"`, `:`, `x`, "2026", `{`, `}`, `"t`, `":"`, `p"`, `::`, `"x:y"`}
	for range 20000 {
		var b []byte
		for range r.IntN(12) {
			b = append(b, parts[r.IntN(len(parts))]...)
		}
		lines = append(lines, b)
	}
	for _, key := range [][]byte{timestampKey, []byte(`"cwd":"`), []byte(`"sessionId":"`), []byte(`"x:y":"`), []byte(`"`)} {
		for _, l := range lines {
			if got, want := indexKey(l, key), bytes.Index(l, key); got != want {
				t.Fatalf("indexKey(%q, %q) = %d, bytes.Index says %d", l, key, got, want)
			}
		}
	}
}
