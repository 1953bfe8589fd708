package stream

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bigMark stands in for a live agent's resume point: kilobytes, next to
// a batch of one small event.
func bigMark(n int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"off":%d,"pad":%q}`, n, strings.Repeat("x", 4000)))
}

func delta(n int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"off":%d}`, n)) }

// lineKinds says, line by line, which resume point each journal line
// carries: c (whole), d (delta) or - (none).
func lineKinds(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var jl journalLine
		if err := json.Unmarshal([]byte(line), &jl); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch {
		case jl.Mark != nil:
			out.WriteByte('c')
		case jl.Delta != nil:
			out.WriteByte('d')
		default:
			out.WriteByte('-')
		}
	}
	return out.String()
}

func deltaOffsets(r Resume) []string {
	var out []string
	for _, d := range r.Deltas {
		out = append(out, string(d))
	}
	return out
}

// TestDeltasKeepTheJournalNearTheEventsBytes: a thousand one-event batches,
// each with a 4 KB mark. Today every line repeats the mark (10× the
// events); with deltas the file stays within 2× of the events' own bytes,
// and a reload hands back the last whole mark and the deltas after it.
func TestDeltasKeepTheJournalNearTheEventsBytes(t *testing.T) {
	dir, h, tp := hubTopic(t, 2000)
	tp.journal.MaxBytes = 64 << 20 // no compaction: every line is measured
	var events int64
	const n = 1000
	for i := 1; i <= n; i++ {
		items, err := tp.PublishDelta(texts(1, "ran go test ./... and it passed"), bigMark(i), delta(i))
		if err != nil {
			t.Fatal(err)
		}
		events += int64(len(items[0].Data))
	}
	h.Close()
	path := filepath.Join(dir, "w.jsonl")
	info, _ := os.Stat(path)
	if info.Size() > 2*events {
		t.Errorf("journal is %d B for %d B of events (%.1f×), want at most 2×", info.Size(), events, float64(info.Size())/float64(events))
	}
	t.Logf("journal %d B for %d B of events: %.2f×", info.Size(), events, float64(info.Size())/float64(events))
	kinds := lineKinds(t, path)
	if kinds[0] != 'c' || strings.Count(kinds, "c") < 2 || strings.Count(kinds, "c") > n/20 {
		t.Errorf("whole marks at %q: want the first line, then one now and then", kinds)
	}

	tp2, _ := NewHub(dir, 2000).Topic("w")
	last := strings.LastIndexByte(kinds, 'c') + 1 // the number of the line with the last whole mark
	r := tp2.Resume()
	if want := bigMark(last); string(r.Mark) != string(want) {
		t.Errorf("resumed mark is not line %d's", last)
	}
	got := deltaOffsets(r)
	if len(got) != n-last || got[0] != string(delta(last+1)) || got[len(got)-1] != string(delta(n)) {
		t.Errorf("deltas after line %d: %d of them, %v…", last, len(got), got[:min(3, len(got))])
	}
	if tp2.LastID() != n {
		t.Errorf("last id %d, want %d", tp2.LastID(), n)
	}
}

// TestDeltaJournalEdges: the first line of a journal, the line after a
// failed write and a compacted file carry the whole mark (a delta there
// would be relative to nothing on disk); a torn delta is dropped with its
// events; a mark published whole supersedes the loaded deltas.
func TestDeltaJournalEdges(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	path := filepath.Join(dir, "w.jsonl")
	for i := 1; i <= 3; i++ {
		tp.PublishDelta(texts(1, "a"), bigMark(i), delta(i))
	}
	if k := lineKinds(t, path); k != "cdd" {
		t.Errorf("lines %q, want cdd", k)
	}

	d := failingJournal(t, tp)
	d.full = true
	if _, err := tp.PublishDelta(texts(1, "lost"), bigMark(4), delta(4)); err == nil {
		t.Fatal("a write to a full disk succeeded")
	}
	d.full = false
	tp.PublishDelta(texts(1, "b"), bigMark(5), delta(5))
	tp.PublishDelta(texts(1, "c"), bigMark(6), delta(6))
	if k := lineKinds(t, path); k != "cddcd" {
		t.Errorf("after a failed write, lines %q, want cddcd: the next line must be whole", k)
	}
	h.Close()

	// Killed mid-write of a delta line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"e":[{"type":"assistant","id":7,"content":"torn"}],"d":{"off":`)
	f.Close()
	h2 := NewHub(dir, 100)
	tp2, _ := h2.Topic("w")
	r := tp2.Resume()
	if string(r.Mark) != string(bigMark(5)) || strings.Join(deltaOffsets(r), " ") != string(delta(6)) || tp2.LastID() != 6 {
		t.Errorf("after a torn delta: mark %.12s…, deltas %v, last id %d; want line 5's, [{off:6}], 6", r.Mark, deltaOffsets(r), tp2.LastID())
	}
	tp2.PublishDelta(texts(1, "d"), bigMark(7), delta(7))
	if r := tp2.Resume(); string(r.Mark) != string(bigMark(7)) || len(r.Deltas) != 0 {
		t.Errorf("after a publish the topic still offers %d loaded deltas", len(r.Deltas))
	}

	// Compaction writes the whole current mark.
	tp2.journal.MaxBytes = 1
	tp2.PublishDelta(texts(1, "e"), bigMark(8), delta(8))
	h2.Close()
	if k := lineKinds(t, path); k != "c" {
		t.Errorf("compacted journal lines %q, want one whole mark", k)
	}
	tp3, _ := NewHub(dir, 100).Topic("w")
	if r := tp3.Resume(); string(r.Mark) != string(bigMark(8)) || len(r.Deltas) != 0 || tp3.LastID() != 8 {
		t.Errorf("after compaction: %d deltas, last id %d", len(r.Deltas), tp3.LastID())
	}
}

// TestLazyMarkIsEncodedOnlyWhenWrittenWhole: a batch published with a
// delta and a mark to make on demand makes the mark only where the
// journal writes it whole (its first line, after a failed write, on
// compaction) or a reader asks for it, at most once per batch; and a
// batch made after a failed write still puts that batch's mark on disk,
// not a later one.
func TestLazyMarkIsEncodedOnlyWhenWrittenWhole(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	path := filepath.Join(dir, "w.jsonl")
	made := lazyMarks{}
	for i := 1; i <= 3; i++ {
		if _, err := tp.PublishLazy(texts(1, "a"), made.mark(i), delta(i)); err != nil {
			t.Fatal(err)
		}
	}
	if k := lineKinds(t, path); k != "cdd" || made[1] != 1 || made[2]+made[3] != 0 {
		t.Errorf("lines %q, marks made %v; want cdd and only line 1's", k, made)
	}
	// Batch 3's was not made while it was published, and is forgotten:
	// made later, it would say its producer's state by then.
	if r := tp.Resume(); r.Mark != nil || made[3] != 0 {
		t.Errorf("Resume after a lazy batch gives %.12s…, its mark made %d times; want none, never", r.Mark, made[3])
	}

	d := failingJournal(t, tp)
	d.full = true
	if _, err := tp.PublishLazy(texts(1, "lost"), made.mark(4), delta(4)); err == nil {
		t.Fatal("a write to a full disk succeeded")
	}
	if made[4] != 1 { // while it is still the batch's: the next line carries it
		t.Errorf("after a failed write, batch 4's mark made %d times, want once", made[4])
	}
	d.full = false
	if _, err := tp.Publish(texts(1, "paired"), nil); err != nil { // no mark of its own: the current one
		t.Fatal(err)
	}
	if k := lineKinds(t, path); k != "cddc" || made[4] != 1 {
		t.Errorf("after a failed write, lines %q, batch 4's mark made %d times; want cddc, once", k, made[4])
	}
	h.Close()
	tp2, _ := NewHub(dir, 100).Topic("w")
	if r := tp2.Resume(); string(r.Mark) != string(bigMark(4)) || tp2.LastID() != 5 {
		t.Errorf("resumed at %.12s…, last id %d; want batch 4's mark, 5", r.Mark, tp2.LastID())
	}
}

// TestForgottenMarkWaitsForItsCompaction: a journal past its bound is
// compacted into one line holding the whole mark; while the newest
// mark is a lazy one that was never made (forgotten), a batch with no
// mark of its own (a side's) leaves the file as it is, and the next
// batch with a mark compacts it. A reload resumes at that mark.
func TestForgottenMarkWaitsForItsCompaction(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	path := filepath.Join(dir, "w.jsonl")
	made := lazyMarks{}
	if _, err := tp.PublishLazy(texts(1, "a"), made.mark(1), delta(1)); err != nil { // whole: the file has none yet
		t.Fatal(err)
	}
	i := 2
	for ; tp.journal.size < 10<<10; i++ {
		if _, err := tp.PublishLazy(texts(1, strings.Repeat("b", 200)), made.mark(i), delta(i)); err != nil {
			t.Fatal(err)
		}
	}
	last := i - 1
	tp.journal.MaxBytes = tp.journal.size + 100 // the side's line goes past it
	if _, err := tp.PublishSide(texts(1, strings.Repeat("s", 300)), "browse", json.RawMessage(`{"at":1}`)); err != nil {
		t.Fatal(err)
	}
	if k := lineKinds(t, path); k[0] != 'c' || strings.Count(k, "c") != 1 || made[last] != 0 {
		t.Fatalf("after a side's batch past the bound: lines %q, the last mark made %d times; want the file as it was, nothing made", k, made[last])
	}
	if _, err := tp.PublishLazy(texts(1, "c"), made.mark(i), delta(i)); err != nil {
		t.Fatal(err)
	}
	if k := lineKinds(t, path); k != "c" || made[i] != 1 {
		t.Fatalf("after the next batch with a mark: lines %q, its mark made %d times; want one compacted line, once", k, made[i])
	}
	h.Close()
	tp2, _ := NewHub(dir, 100).Topic("w")
	if r := tp2.Resume(); string(r.Mark) != string(bigMark(i)) || len(r.Deltas) != 0 || string(tp2.Side("browse")) != `{"at":1}` {
		t.Errorf("resumed at %.12s… with %d deltas, side %s; want batch %d's mark, none, the side's", r.Mark, len(r.Deltas), tp2.Side("browse"), i)
	}
}

// lazyMarks makes each batch's mark on demand (bigMark(i) for
// batch i) and counts, by batch, how often it was made.
type lazyMarks map[int]int

func (made lazyMarks) mark(i int) func() json.RawMessage {
	return func() json.RawMessage { made[i]++; return bigMark(i) }
}

// TestPublishLazyKeepsNoDeltaBytes: a producer encodes each line's delta
// into the buffer the line before used, so the topic and its journal
// must keep none of the bytes they were handed: after the buffer is
// written over, a restart still reads each line's own delta, and a lazy
// mark left over from an earlier line is never the next one's.
func TestPublishLazyKeepsNoDeltaBytes(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	made := lazyMarks{}
	if _, err := tp.PublishLazy(texts(1, "first"), made.mark(1), delta(1)); err != nil { // whole: the file has none yet
		t.Fatal(err)
	}
	var buf []byte
	var want []string
	for i := 2; i <= 12; i++ {
		buf = append(buf[:0], delta(i*1000)...) // longer each time: the same bytes written over
		if _, err := tp.PublishLazy(texts(1, "a"), made.mark(i), buf); err != nil {
			t.Fatal(err)
		}
		want = append(want, string(delta(i*1000)))
	}
	copy(buf, strings.Repeat("#", len(buf)))
	if made[1] != 1 {
		t.Fatalf("marks made %v, want only the first line's", made)
	}
	h.Close()
	tp2, err := NewHub(dir, 100).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	r := tp2.Resume()
	if string(r.Mark) != string(bigMark(1)) || !slices.Equal(deltaOffsets(r), want) {
		t.Errorf("resumed at %.12s… with deltas %q; want the first mark and %q", r.Mark, deltaOffsets(r), want)
	}
}
