//go:build unix

package usage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBadFilesDoNotStopTheReport: garbage, a line over the 16 MB bound, a
// last line without its newline cost the report only themselves; a FIFO,
// a folder named like a transcript and an empty record (no session:
// TestAResumedSessionsWarmupsCountInIt) are not read at all.
func TestBadFilesDoNotStopTheReport(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "-w")
	os.MkdirAll(filepath.Join(proj, "folder.jsonl"), 0o755)
	good := line(sid1, "2026-12-02T10:00:00.000Z", "m1", "r1", use(100, 20))
	huge := `{"type":"user","message":{"content":"` + strings.Repeat("x", maxLine+10) + `"}}`
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(sid1+".jsonl", "\x00\xff garbage\n{\"type\":\n"+huge+"\n"+good) // no final newline
	write(sid2+".jsonl", "not json at all")
	write("0a0a0a0a-1111-4111-8111-000000000003.jsonl", "")
	if err := syscall.Mkfifo(filepath.Join(proj, "0a0a0a0a-1111-4111-8111-000000000004.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h, err := Source{Formats: agentsAt(root, "")}.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var in int64
	for _, tr := range h.Turns {
		in += tr.Usage.InputTokens
	}
	if in != 100 || len(h.Errors) != 0 || h.Files != 2 {
		t.Errorf("input %d (want the one good response's 100), %d files (want 2: not the FIFO, not the empty one), errors %v", in, h.Files, h.Errors)
	}
}

// TestLineReader: lines come out whole and trimmed, empty ones skipped, a
// line longer than the read buffer gathered, a last one without newline kept.
func TestLineReader(t *testing.T) {
	long := strings.Repeat("y", 600<<10)
	path := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(path, []byte("a\n\n  \n"+long+"\r\nb"), 0o644)
	r, err := openLines(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		l, err := r.next()
		if err != nil {
			break
		}
		got = append(got, string(bytes.Clone(l)))
	}
	if len(got) != 3 || got[0] != "a" || got[1] != long || got[2] != "b" {
		t.Errorf("lines %d: %.20q", len(got), got)
	}
}
