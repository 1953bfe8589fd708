package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
)

// TestKillNineMidStreamLosesNothing writes a transcript continuously while
// the bridge is killed with SIGKILL and restarted; a client that resumes
// with Last-Event-ID sees every line exactly once, in order, with ids that
// keep increasing across the restart.
func TestKillNineMidStreamLosesNothing(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "work", "app")
	proj := filepath.Join(home, ".claude", "projects", claude.EncodeProjectDir(dir))
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(proj, 0o755)
	path := filepath.Join(proj, "99999999-9999-4999-8999-999999999999.jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := func(n int) {
		fmt.Fprintf(f, `{"type":"user","sessionId":"s","cwd":%q,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"msg %d"}}`+"\n", dir, n)
	}
	const total = 300
	line(0)
	seen := streamAcrossKill(t, home, dir, total, event.User, func(n int) {
		line(n)
		if n%10 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	})
	var msgs []string
	for _, e := range seen {
		if e.Type == event.User {
			msgs = append(msgs, e.Content)
		}
	}
	for n, m := range msgs {
		if m != "msg "+strconv.Itoa(n) {
			t.Fatalf("message %d is %q; all: %s", n, m, strings.Join(msgs, ","))
		}
	}
	if len(msgs) != total {
		t.Errorf("saw %d messages, want %d", len(msgs), total)
	}
}
