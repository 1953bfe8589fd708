package linefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeldRecordReadsAsAFreshOpenWould runs one record's life — growth, a
// partial line, truncation, replacement by rename (the old file gone, or
// kept under another name), deletion, coming back, a FIFO in its place —
// past two readers, one opening the file for each
// read and one keeping it open (Files), and wants the same lines, resets
// and errors from both at every step.
func TestHeldRecordReadsAsAFreshOpenWould(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"first lines", func(t *testing.T) { appendFile(t, path, "a\nb\n") }},
		{"nothing new", func(t *testing.T) {}},
		{"half a line", func(t *testing.T) { appendFile(t, path, "c1") }},
		{"its end", func(t *testing.T) { appendFile(t, path, "c2\nd\n") }},
		{"truncated and rewritten", func(t *testing.T) { os.WriteFile(path, []byte("x\n"), 0o644) }},
		{"replaced by a larger file", func(t *testing.T) {
			tmp := filepath.Join(dir, "new")
			os.WriteFile(tmp, []byte("y\nz\nzz\n"), 0o644)
			os.Rename(tmp, path)
		}},
		{"grows after the replacement", func(t *testing.T) { appendFile(t, path, "after\n") }},
		{"replaced while the old file keeps another name", func(t *testing.T) {
			if err := os.Link(path, filepath.Join(dir, "old-name")); err != nil {
				t.Skipf("cannot link: %v", err)
			}
			tmp := filepath.Join(dir, "new")
			os.WriteFile(tmp, []byte("linked-away\nwas\nhere\nand\nlonger\n"), 0o644)
			os.Rename(tmp, path)
		}},
		{"grows after that", func(t *testing.T) { appendFile(t, path, "more\n") }},
		{"replaced while its old writer goes on", func(t *testing.T) {
			old, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer old.Close()
			tmp := filepath.Join(dir, "new")
			os.WriteFile(tmp, []byte("fresh\n"), 0o644)
			os.Rename(tmp, path)
			old.WriteString("written to the file no longer named\n")
		}},
		{"deleted", func(t *testing.T) { os.Remove(path) }},
		{"back", func(t *testing.T) { appendFile(t, path, "again\n") }},
		{"a FIFO in its place", func(t *testing.T) {
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("cannot make a FIFO: %v", err)
			}
		}},
		{"a file again", func(t *testing.T) { os.Remove(path); appendFile(t, path, "last\n") }},
	}
	fresh, held := &Reader{Path: path}, &Reader{Path: path, Files: NewFiles(4)}
	defer held.Close()
	for _, st := range steps {
		st.do(t)
		var a, b collected
		ra, errA := fresh.Read(a.fn)
		rb, errB := held.Read(b.fn)
		if (errA == nil) != (errB == nil) || ra != rb || fmt.Sprint(a) != fmt.Sprint(b) || fresh.Offset != held.Offset {
			t.Errorf("%s: fresh %v %+v %q at %d; held %v %+v %q at %d", st.name, errA, ra, a.lines, fresh.Offset, errB, rb, b.lines, held.Offset)
		}
	}
}

// TestHeldRecordsStayWithinTheirBound: ten readers in turn under a budget
// of three hold three files at most, each still reads all of its lines,
// and the idle ones give theirs back.
func TestHeldRecordsStayWithinTheirBound(t *testing.T) {
	dir := t.TempDir()
	files := NewFiles(3)
	now := time.Unix(1000, 0)
	files.now = func() time.Time { return now }
	readers := make([]*Reader, 10)
	got := make([]collected, len(readers))
	for i := range readers {
		readers[i] = &Reader{Path: filepath.Join(dir, fmt.Sprintf("%d.jsonl", i)), Files: files}
	}
	held := func() int {
		n := 0
		for _, r := range readers {
			if r.held != nil && r.held.f != nil {
				n++
			}
		}
		return n
	}
	for round := range 3 {
		for i, r := range readers {
			appendFile(t, r.Path, fmt.Sprintf("line %d\n", round))
			if _, err := r.Read(got[i].fn); err != nil {
				t.Fatal(err)
			}
			if n := held(); n > 3 || files.Open() > 3 {
				t.Fatalf("round %d, reader %d: %d files held, %d in the budget; want at most 3", round, i, n, files.Open())
			}
		}
	}
	for i := range readers {
		if want := "line 0|line 1|line 2"; strings.Join(got[i].lines, "|") != want {
			t.Errorf("reader %d read %q, want %q", i, got[i].lines, want)
		}
	}
	if held() != 3 {
		t.Errorf("%d files held after the rounds, want the 3 read last", held())
	}
	now = now.Add(2 * time.Minute)
	if n := files.ReleaseIdle(time.Minute); n != 3 || held() != 0 || files.Open() != 0 {
		t.Errorf("ReleaseIdle closed %d; %d still held, %d in the budget", n, held(), files.Open())
	}
	appendFile(t, readers[0].Path, "line 3\n")
	if _, err := readers[0].Read(got[0].fn); err != nil || got[0].lines[len(got[0].lines)-1] != "line 3" {
		t.Errorf("after release: %v, %q", err, got[0].lines)
	}
	readers[0].Close()
	if held() != 0 || files.Open() != 0 {
		t.Errorf("after Close: %d held, %d in the budget", held(), files.Open())
	}
}
