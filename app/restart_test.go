package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// TestKillNineMidStreamLosesNothing writes a transcript continuously while
// the bridge is killed with SIGKILL and restarted; a client that resumes
// with Last-Event-ID sees every line exactly once, in order, with ids that
// keep increasing across the restart.
func TestKillNineMidStreamLosesNothing(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "work", "app")
	proj := filepath.Join(home, ".claude", "projects", discover.EncodeProjectDir(dir))
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

	port, _ := freePort()
	p := startBridgeProc(t, home, port)
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.LastEventID > 0 })
	c := openStream(t, p, ws.ID, 0)

	// Write the rest in the background, killing the bridge a third of the way.
	written := make(chan struct{})
	go func() {
		defer close(written)
		for n := 1; n < total; n++ {
			line(n)
			if n%10 == 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
	}()
	seen := c.until(t, 30*time.Second, func(evs []event.Event) bool { return count(event.User)(evs) >= total/3 })
	p.kill(syscall.SIGKILL)
	<-written
	// Drain what the old connection delivered before it died.
	for e := range c.events {
		seen = append(seen, e)
	}
	last := seen[len(seen)-1].ID

	p2 := startBridgeProc(t, home, port)
	c2 := openStream(t, p2, ws.ID, last)
	seen = append(seen, c2.until(t, 30*time.Second, func(evs []event.Event) bool {
		return len(evs) > 0 && countUsers(seen)+count(event.User)(evs) >= total
	})...)

	var msgs []string
	for i, e := range seen {
		if i > 0 && e.ID != seen[i-1].ID+1 {
			t.Errorf("id %d follows %d: lost or repeated events", e.ID, seen[i-1].ID)
		}
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

func countUsers(evs []event.Event) int { return count(event.User)(evs) }
