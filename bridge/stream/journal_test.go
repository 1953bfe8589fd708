package stream

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// fullDisk stands in for a journal's file. While full, a write gets half its
// bytes to disk and then fails, as when the disk fills mid-line; while
// stuck, the partial line cannot be cut off either.
type fullDisk struct {
	*os.File
	full, stuck bool
}

func (d *fullDisk) Write(b []byte) (int, error) {
	if !d.full {
		return d.File.Write(b)
	}
	n, _ := d.File.Write(b[:len(b)/2])
	return n, syscall.ENOSPC
}

func (d *fullDisk) Truncate(size int64) error {
	if d.stuck {
		return syscall.EIO
	}
	return d.File.Truncate(size)
}

func failingJournal(t *testing.T, tp *Topic) *fullDisk {
	t.Helper()
	f, ok := tp.journal.f.(*os.File)
	if !ok {
		t.Fatalf("journal file is %T", tp.journal.f)
	}
	d := &fullDisk{File: f}
	tp.journal.f = d
	tp.journal.raw.ok = false // fullDisk stands in for the ordinary write (the raw one's: TestJournalRawWrite*)
	return d
}

// wholeLines fails the test unless the file is a run of complete JSON lines.
func wholeLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("journal ends in a partial line: %q", b)
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n++
		if !json.Valid(sc.Bytes()) {
			t.Errorf("journal line %d is garbled: %q", n, sc.Text())
		}
	}
	return n
}

func increasing(t *testing.T, items []Item) {
	t.Helper()
	for i := 1; i < len(items); i++ {
		if items[i].ID <= items[i-1].ID {
			t.Fatalf("ids go backwards: %v", ids(items))
		}
	}
}

func TestFailedAppendIsCutOffAndItsIDsStaySpent(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	path := filepath.Join(dir, "w.jsonl")
	if _, err := tp.Publish(texts(3, "a"), json.RawMessage(`{"off":1}`)); err != nil {
		t.Fatal(err)
	}
	_, _, s := tp.Subscribe(3)
	before, _ := os.Stat(path)

	d := failingJournal(t, tp)
	d.full = true
	items, err := tp.Publish(texts(2, "lost"), json.RawMessage(`{"off":2}`))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("publish on a full disk: %v", err)
	}
	if got := ids(items); len(got) != 2 || got[0] != 4 || got[1] != 5 {
		t.Fatalf("ids of the failed batch = %v, want [4 5]", got)
	}
	for _, want := range []int64{4, 5} {
		if it := <-s.C; it.ID != want {
			t.Errorf("subscriber got %d, want %d: a failed journal write still delivers", it.ID, want)
		}
	}
	if after, _ := os.Stat(path); after.Size() != before.Size() {
		t.Errorf("journal is %d bytes after the failed write, want %d: partial line not cut off", after.Size(), before.Size())
	}

	// The disk has room again. This batch carries no mark of its own.
	d.full = false
	if items, err := tp.Publish(texts(1, "b"), nil); err != nil || items[0].ID != 6 {
		t.Fatalf("publish after the failure: %v, %v", ids(items), err)
	}
	wholeLines(t, path)
	h.Close()

	h2 := NewHub(dir, 100)
	tp2, err := h2.Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	if tp2.LastID() != 6 {
		t.Errorf("last id after reload = %d, want 6", tp2.LastID())
	}
	// The lost batch's mark went to disk with the next line, so the
	// producer resumes after the events it already numbered.
	if got := string(tp2.Mark()); got != `{"off":2}` {
		t.Errorf("mark after reload = %s, want {\"off\":2}", got)
	}
	hist := tp2.History(0)
	if got := ids(hist); len(got) != 4 || got[0] != 1 || got[2] != 3 || got[3] != 6 {
		t.Errorf("history after reload = %v, want [1 2 3 6]", got)
	}

	// Fail again after the reload, with nothing after it: the watermark is
	// only in memory until the next line lands, then it survives a reload.
	d = failingJournal(t, tp2)
	d.full = true
	if _, err := tp2.Publish(texts(3, "lost"), json.RawMessage(`{"off":3}`)); err == nil {
		t.Fatal("publish on a full disk: no error")
	}
	d.full = false
	// A line with no events: only its watermark says 7..9 are spent.
	if _, err := tp2.Publish(nil, json.RawMessage(`{"off":4}`)); err != nil {
		t.Fatalf("publish after the second failure: %v", err)
	}
	h2.Close()

	tp3, _ := NewHub(dir, 100).Topic("w")
	if tp3.LastID() != 9 || string(tp3.Mark()) != `{"off":4}` {
		t.Errorf("after second reload: last id %d mark %s, want 9 {\"off\":4}", tp3.LastID(), tp3.Mark())
	}
	if items, _ := tp3.Publish(texts(2, "d"), nil); items[0].ID != 10 {
		t.Errorf("next id = %d, want 10", items[0].ID)
	}
	hist = tp3.History(0)
	increasing(t, hist)
	if got := ids(hist); len(got) != 6 || got[4] != 10 || got[5] != 11 {
		t.Errorf("history = %v, want [1 2 3 6 10 11]", got)
	}
	if n := wholeLines(t, path); n != 4 {
		t.Errorf("journal has %d lines, want 4", n)
	}
}

func TestPartialLineThatCannotBeCutIsCutBeforeTheNextAppend(t *testing.T) {
	dir, h, tp := hubTopic(t, 100)
	path := filepath.Join(dir, "w.jsonl")
	tp.Publish(texts(1, "a"), json.RawMessage(`{"off":1}`))

	d := failingJournal(t, tp)
	d.full, d.stuck = true, true
	if _, err := tp.Publish(texts(1, "lost"), nil); err == nil {
		t.Fatal("no error")
	}
	// Still stuck: nothing may be written after the partial line.
	d.full = false
	if _, err := tp.Publish(texts(1, "lost too"), nil); !errors.Is(err, syscall.EIO) {
		t.Fatalf("append behind an uncut partial line: %v", err)
	}
	d.stuck = false
	if items, err := tp.Publish(texts(1, "b"), json.RawMessage(`{"off":4}`)); err != nil || items[0].ID != 4 {
		t.Fatalf("publish once the line can be cut: %v, %v", ids(items), err)
	}
	if n := wholeLines(t, path); n != 2 {
		t.Errorf("journal has %d lines, want 2", n)
	}
	h.Close()

	tp2, _ := NewHub(dir, 100).Topic("w")
	if got := ids(tp2.History(0)); len(got) != 2 || got[0] != 1 || got[1] != 4 {
		t.Errorf("history after reload = %v, want [1 4]", got)
	}
	if tp2.LastID() != 4 || string(tp2.Mark()) != `{"off":4}` {
		t.Errorf("after reload: last id %d mark %s", tp2.LastID(), tp2.Mark())
	}
}

func TestCompactionAfterFailedAppendKeepsWatermark(t *testing.T) {
	dir, h, tp := hubTopic(t, 3)
	tp.Publish(texts(2, "a"), nil)
	d := failingJournal(t, tp)
	d.full = true
	tp.Publish(texts(2, "lost"), json.RawMessage(`{"off":2}`)) // 3, 4
	d.full = false
	// Force the next append to compact: the kept history (the lost batch
	// included, it is still in memory) goes to a new file.
	tp.journal.MaxBytes = 1
	if items, err := tp.Publish(texts(1, "b"), nil); err != nil || items[0].ID != 5 {
		t.Fatalf("compacting publish: %v, %v", ids(items), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "w.jsonl.tmp")); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	h.Close()
	tp2, _ := NewHub(dir, 3).Topic("w")
	if got := ids(tp2.History(0)); len(got) != 3 || got[0] != 3 || got[2] != 5 {
		t.Errorf("history after compaction = %v, want [3 4 5]", got)
	}
	if tp2.LastID() != 5 || string(tp2.Mark()) != `{"off":2}` {
		t.Errorf("after compaction: last id %d mark %s", tp2.LastID(), tp2.Mark())
	}
}

func TestLoadHonoursWatermark(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.jsonl")
	// A line whose watermark is ahead of its events (a batch after it was
	// lost), and an old line without one.
	os.WriteFile(path, []byte(`{"e":[{"type":"assistant","id":1}],"n":9}`+"\n"+
		`{"e":[{"type":"assistant","id":9}],"c":{"off":1}}`+"\n"), 0o600)
	tp, err := NewHub(dir, 10).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	if tp.LastID() != 9 {
		t.Errorf("last id = %d, want 9", tp.LastID())
	}
	if got := ids(tp.History(0)); len(got) != 2 {
		t.Errorf("history = %v, want [1 9]", got)
	}

	os.WriteFile(path, []byte(`{"e":[{"type":"assistant","id":1}],"n":9}`+"\n"), 0o600)
	tp2, _ := NewHub(dir, 10).Topic("w")
	if items, _ := tp2.Publish(texts(1, "x"), nil); items[0].ID != 9 {
		t.Errorf("next id = %d, want 9 (the watermark)", items[0].ID)
	}
}
