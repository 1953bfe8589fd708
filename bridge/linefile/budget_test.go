package linefile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A backlog is handed out in batches of about Budget bytes, each ending at a
// line boundary, with nothing lost or repeated across the batches: by a
// reader opening the file for each read, one keeping it open, and one
// keeping it open told Unchanged (no file made, moved or deleted since),
// which reads without knowing the file's size.
func TestReaderBudgetReadsABacklogInBatches(t *testing.T) {
	for _, tt := range []struct {
		name             string
		files, unchanged bool
	}{
		{"opened for each read", false, false},
		{"held open", true, false},
		{"held open, told unchanged", true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			appendFile(t, path, "first\n")
			r := &Reader{Path: path, Budget: 4096}
			if tt.files {
				r.Files = NewFiles(4)
				defer r.Close()
			}
			var c collected
			if _, err := r.Read(c.fn); err != nil || len(c.lines) != 1 {
				t.Fatalf("first read: %v, %q", err, c.lines)
			}
			want := []string{"first"}
			var b strings.Builder
			for i := range 3000 { // some 140 KB: more than one read buffer
				line := fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", i%50))
				want = append(want, line)
				b.WriteString(line + "\n")
			}
			appendFile(t, path, b.String())
			calls := 0
			for {
				before := len(c.lines)
				r.Unchanged = tt.unchanged
				res, err := r.Read(c.fn)
				if err != nil {
					t.Fatal(err)
				}
				calls++
				got := 0
				for _, l := range c.lines[before:] {
					got += len(l) + 1
				}
				if got > 4096+200 {
					t.Fatalf("batch %d handed out %d bytes, budget 4096", calls, got)
				}
				if !res.More {
					break
				}
			}
			if calls < 10 {
				t.Fatalf("a %d-byte backlog came in %d reads: the budget was not applied", b.Len(), calls)
			}
			if strings.Join(c.lines, "\n") != strings.Join(want, "\n") {
				t.Fatalf("lines lost or repeated across batches: got %d want %d", len(c.lines), len(want))
			}
		})
	}
}
