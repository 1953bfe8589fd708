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
// partial line, a burst of several buffers' worth, truncation (then
// growth past where it was read before the next read), replacement by
// rename (by a file of the same size, the old file gone or kept under
// another name, its old writer going on), deletion (its writer going
// on), coming back, a FIFO in its place — past three readers: one
// opening the file for each read, one keeping it open (Files), and one
// keeping it open told Unchanged whenever no file was made, moved or
// deleted in the folder since its last read, as a folder's watch would
// tell it. It wants the same lines, resets and errors from all three at
// every step.
func TestHeldRecordReadsAsAFreshOpenWould(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	replace := func(t *testing.T, content string) {
		tmp := filepath.Join(dir, "new")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	keepOld := func(t *testing.T, name string) {
		if err := os.Link(path, filepath.Join(dir, name)); err != nil {
			t.Skipf("cannot link: %v", err)
		}
	}
	writeOn := func(t *testing.T, then func(t *testing.T)) {
		old, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer old.Close()
		then(t)
		if _, err := old.WriteString("written to the file no longer named\n"); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		name string
		// names: the step makes, moves or deletes a file in the folder,
		// which a watch of the folder reports.
		names bool
		do    func(t *testing.T)
	}{
		{"first lines", true, func(t *testing.T) { appendFile(t, path, "a\nb\n") }},
		{"nothing new", false, func(t *testing.T) {}},
		{"half a line", false, func(t *testing.T) { appendFile(t, path, "c1") }},
		{"its end", false, func(t *testing.T) { appendFile(t, path, "c2\nd\n") }},
		{"a burst of several buffers", false, func(t *testing.T) { appendFile(t, path, burst(3*chunkSize+chunkSize/3)) }},
		{"truncated and rewritten", false, func(t *testing.T) { rewrite(t, path, "x\n") }},
		{"truncated and grown past where it was read", false, func(t *testing.T) { rewrite(t, path, "long after the truncation\nand on\n") }},
		{"rewritten in place to the same size", false, func(t *testing.T) { rewrite(t, path, sameSize(t, path, 'r')) }},
		{"truncated to nothing", false, func(t *testing.T) { rewrite(t, path, "") }},
		{"grows from nothing", false, func(t *testing.T) { appendFile(t, path, "again from 0\n") }},
		{"replaced by a file of the same size", true, func(t *testing.T) { replace(t, sameSize(t, path, 's')) }},
		{"replaced by a larger file", true, func(t *testing.T) { replace(t, "y\nz\nzz\n") }},
		{"grows after the replacement", false, func(t *testing.T) { appendFile(t, path, "after\n") }},
		{"replaced while the old file keeps another name", true, func(t *testing.T) {
			keepOld(t, "old-name")
			replace(t, "linked-away\nwas\nhere\nand\nlonger\n")
		}},
		{"grows after that", false, func(t *testing.T) { appendFile(t, path, "more\n") }},
		{"replaced by a file of the same size while the old keeps another name", true, func(t *testing.T) {
			keepOld(t, "older-name")
			replace(t, sameSize(t, path, 'k'))
		}},
		{"replaced while its old writer goes on", true, func(t *testing.T) {
			writeOn(t, func(t *testing.T) { replace(t, "fresh\n") })
		}},
		{"deleted while its writer goes on", true, func(t *testing.T) {
			writeOn(t, func(t *testing.T) { os.Remove(path) })
		}},
		{"back", true, func(t *testing.T) { appendFile(t, path, "again\n") }},
		{"deleted", true, func(t *testing.T) { os.Remove(path) }},
		{"back once more", true, func(t *testing.T) { appendFile(t, path, "and again\n") }},
		{"a FIFO in its place", true, func(t *testing.T) {
			os.Remove(path)
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("cannot make a FIFO: %v", err)
			}
		}},
		{"a file again", true, func(t *testing.T) { os.Remove(path); appendFile(t, path, "last\n") }},
	}
	fresh := &Reader{Path: path}
	held := &Reader{Path: path, Files: NewFiles(4)}
	watched := &Reader{Path: path, Files: NewFiles(4)}
	defer held.Close()
	defer watched.Close()
	named := false // a file made, moved or deleted since watched's last read
	for _, st := range steps {
		st.do(t)
		named = named || st.names
		var a, b, c collected
		ra, errA := fresh.Read(a.fn)
		rb, errB := held.Read(b.fn)
		watched.Unchanged = !named
		before := watched.Seen()
		rc, errC := watched.Read(c.fn)
		named = false
		if (errA == nil) != (errB == nil) || ra != rb || fmt.Sprint(a) != fmt.Sprint(b) || fresh.Offset != held.Offset {
			t.Errorf("%s: fresh %v %+v %q at %d; held %v %+v %q at %d", st.name, errA, ra, a.lines, fresh.Offset, errB, rb, b.lines, held.Offset)
		}
		// Told Unchanged, a reader that finds more to read does not look
		// at the file: it has no time of the file's (ReadResult).
		if rc.ModTime.IsZero() && watched.Seen() > before {
			rc.ModTime = ra.ModTime
		}
		if (errA == nil) != (errC == nil) || ra != rc || fmt.Sprint(a) != fmt.Sprint(c) || fresh.Offset != watched.Offset {
			t.Errorf("%s: fresh %v %+v %q at %d; watched %v %+v %q at %d", st.name, errA, ra, a.lines, fresh.Offset, errC, rc, c.lines, watched.Offset)
		}
	}
}

// burst is about n bytes of lines of many lengths, the last one whole.
func burst(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("x", i%300))
	}
	return b.String()
}

// rewrite writes content over path's own file (truncating it), as
// os.WriteFile does: no file is made, moved or deleted.
func rewrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameSize is one line of c as long as path's file.
func sameSize(t *testing.T, path string, c byte) string {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil || info.Size() < 2 {
		t.Fatalf("no file of two bytes or more at %s: %v", path, err)
	}
	return strings.Repeat(string(c), int(info.Size())-1) + "\n"
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
