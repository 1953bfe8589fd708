//go:build unix

package linefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO planted where a transcript (or a subagent's) is expected is
// refused at once: a plain open would wait for a writer forever and hang
// the workspace's follower and its hooks. A regular file still reads.
func TestReaderRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, path string
		fifo       bool
	}{
		{"transcript fifo", filepath.Join(dir, "s1.jsonl"), true},
		{"subagent fifo", filepath.Join(dir, "s1", "subagents", "agent-a.jsonl"), true},
		{"regular file", filepath.Join(dir, "s2.jsonl"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.MkdirAll(filepath.Dir(tt.path), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.fifo {
				if err := syscall.Mkfifo(tt.path, 0o644); err != nil {
					t.Skipf("cannot make a FIFO: %v", err)
				}
			} else if err := os.WriteFile(tt.path, []byte("{\"type\":\"user\"}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			type result struct {
				lines int
				err   error
			}
			done := make(chan result, 1)
			go func() {
				r := &Reader{Path: tt.path}
				r.SkipTo(1)
				r.SkipTo(0)
				res, err := r.Read(func([]byte, int64) {})
				done <- result{res.Lines, err}
			}()
			var got result
			select {
			case got = <-done:
			case <-time.After(30 * time.Second): // a hang guard, not a timing assertion
				t.Fatal("Read blocked on a FIFO")
			}
			if tt.fifo {
				if got.err == nil || !strings.Contains(got.err.Error(), "not a regular file") {
					t.Errorf("Read of a FIFO: err = %v, want not a regular file", got.err)
				}
				return
			}
			if got.err != nil || got.lines != 1 {
				t.Errorf("Read of a regular file: %d lines, %v", got.lines, got.err)
			}
		})
	}
}
