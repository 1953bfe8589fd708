package linefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type collected struct {
	lines []string
	ends  []int64
}

func (c *collected) fn(line []byte, end int64) {
	c.lines = append(c.lines, string(line))
	c.ends = append(c.ends, end)
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestReaderOnlyCompleteLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendFile(t, path, "one\ntw")
	r := &Reader{Path: path}
	var c collected
	if _, err := r.Read(c.fn); err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.lines, "|") != "one" || r.Offset != 4 {
		t.Fatalf("lines %q offset %d", c.lines, r.Offset)
	}
	appendFile(t, path, "o\r\nthree\n")
	r.Read(c.fn)
	if strings.Join(c.lines, "|") != "one|two|three" || c.ends[2] != 15 || r.Offset != 15 {
		t.Fatalf("lines %q ends %v", c.lines, c.ends)
	}
	// Nothing new: nothing handed out.
	if res, _ := r.Read(c.fn); res.Lines != 0 {
		t.Errorf("re-read %d lines", res.Lines)
	}
}

func TestReaderResumesFromOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendFile(t, path, "a\nb\nc\n")
	r := &Reader{Path: path, Offset: 2} // as restored from a journal
	var c collected
	r.Read(c.fn)
	if strings.Join(c.lines, "|") != "b|c" {
		t.Errorf("lines %q", c.lines)
	}
}

func TestReaderSkipsOversizedLineWithBoundedMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	big := strings.Repeat("x", 300<<10) // several chunks, over the limit
	appendFile(t, path, "first\n"+big[:100<<10])
	r := &Reader{Path: path, MaxLine: 64 << 10}
	var c collected
	res, _ := r.Read(c.fn)
	if res.Oversized != 1 || cap(r.pending) > 128<<10 {
		t.Fatalf("oversized=%d pending cap=%d", res.Oversized, cap(r.pending))
	}
	appendFile(t, path, big[100<<10:]+"\nafter\n")
	res, _ = r.Read(c.fn)
	if strings.Join(c.lines, "|") != "first|after" || res.Oversized != 0 {
		t.Errorf("lines %q oversized %d", c.lines, res.Oversized)
	}
	// A multi-megabyte line under the limit is handed out whole.
	r2 := &Reader{Path: path}
	var c2 collected
	r2.Read(c2.fn)
	if len(c2.lines) != 3 || len(c2.lines[1]) != len(big) {
		t.Errorf("big line not read whole: %d lines", len(c2.lines))
	}
}

func TestReaderRereadsTruncatedOrReplacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	appendFile(t, path, "a\nb\n")
	r := &Reader{Path: path}
	var c collected
	r.Read(c.fn)
	os.WriteFile(path, []byte("x\n"), 0o644) // truncated and rewritten
	res, _ := r.Read(c.fn)
	if !res.Reset || strings.Join(c.lines, "|") != "a|b|x" {
		t.Fatalf("after truncate: reset=%v lines %q", res.Reset, c.lines)
	}
	// Replaced by another file of the same size or larger.
	tmp := filepath.Join(dir, "new")
	os.WriteFile(tmp, []byte("y\nz\n"), 0o644)
	os.Rename(tmp, path)
	res, _ = r.Read(c.fn)
	if !res.Reset || strings.Join(c.lines, "|") != "a|b|x|y|z" {
		t.Fatalf("after replace: reset=%v lines %q", res.Reset, c.lines)
	}
}

func TestReaderSkipToStartsAtALineBoundary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendFile(t, path, "aaaa\nbbbb\ncccc\n")
	for _, tt := range []struct {
		off  int64
		want string
	}{{0, "aaaa|bbbb|cccc"}, {3, "bbbb|cccc"}, {5, "bbbb|cccc"}, {6, "cccc"}} {
		r := &Reader{Path: path}
		r.SkipTo(tt.off)
		var c collected
		r.Read(c.fn)
		if got := strings.Join(c.lines, "|"); got != tt.want {
			t.Errorf("SkipTo(%d): %q, want %q", tt.off, got, tt.want)
		}
	}
}

func TestReaderMissingFile(t *testing.T) {
	r := &Reader{Path: filepath.Join(t.TempDir(), "gone.jsonl")}
	if _, err := r.Read(func([]byte, int64) {}); err == nil {
		t.Error("want error for a missing file")
	}
}
