package linefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSeenCountsAPartialLine: Seen is where the file stops having
// anything new, a line still being written included; Offset stays at the
// last whole line, where a restart resumes.
func TestSeenCountsAPartialLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte("{\"a\":1}\n{\"b\""), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Reader{Path: p}
	if _, err := r.Read(func([]byte, int64) {}); err != nil {
		t.Fatal(err)
	}
	if r.Offset != 8 || r.Seen() != 12 {
		t.Errorf("Offset, Seen = %d, %d; want 8, 12", r.Offset, r.Seen())
	}
}
