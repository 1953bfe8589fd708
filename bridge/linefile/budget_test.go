package linefile

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A backlog is handed out in batches of about Budget bytes, each ending at a
// line boundary, with nothing lost or repeated across the batches.
func TestReaderBudgetReadsABacklogInBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var want []string
	var b strings.Builder
	for i := range 1000 {
		line := fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("x", i%50))
		want = append(want, line)
		b.WriteString(line + "\n")
	}
	appendFile(t, path, b.String())
	r := &Reader{Path: path, Budget: 4096}
	var c collected
	calls := 0
	for {
		before := len(c.lines)
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
}
