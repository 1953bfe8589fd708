package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestKillNineMidCodexStreamLosesNothing: a Codex rollout (0.169's shape)
// written while the bridge is killed with SIGKILL and restarted; a client
// resuming with Last-Event-ID sees every prompt and every turn's end
// exactly once, in order, with ids that keep increasing, as for Claude.
func TestKillNineMidCodexStreamLosesNothing(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "work", "cx")
	now := time.Now()
	day := filepath.Join(home, ".codex", "sessions", now.Format("2006"), now.Format("01"), now.Format("02"))
	for _, d := range []string{dir, day} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const thread = "019a9999-9999-7999-8999-999999999999"
	f, err := os.Create(filepath.Join(day, "rollout-"+now.Format("2006-01-02T15-04-05")+"-"+thread+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	cr := &codexRollout{w: f, thread: thread, ts: now}
	write := func(fn func() error) {
		mu.Lock()
		defer mu.Unlock()
		if err := fn(); err != nil {
			t.Error(err)
		}
	}
	write(func() error { return cr.meta(dir) })
	const turns = 60 // each a prompt, tools, usage and its end
	write(func() error { return cr.turn(0) })

	seen := streamAcrossKill(t, home, dir, turns, event.TurnComplete, func(n int) {
		write(func() error { return cr.turn(n) })
		time.Sleep(5 * time.Millisecond)
	})

	var prompts []string
	ends := 0
	for _, e := range seen {
		if e.SessionID != thread || e.Agent != "codex" {
			t.Errorf("event %d: session %q agent %q", e.ID, e.SessionID, e.Agent)
		}
		switch e.Type {
		case event.User:
			prompts = append(prompts, e.Content)
		case event.TurnComplete:
			ends++
			if e.Usage.InputTokens != 400 || e.Usage.CacheReadTokens != 800 {
				t.Errorf("turn %d usage %+v, want one response of 1200 in (800 cached)", ends, e.Usage)
			}
		}
	}
	for n, m := range prompts {
		if m != "fix the failing test "+strconv.Itoa(n) {
			t.Fatalf("prompt %d is %q; all: %s", n, m, strings.Join(prompts, ","))
		}
	}
	if len(prompts) != turns || ends != turns {
		t.Errorf("saw %d prompts and %d turn ends, want %d each", len(prompts), ends, turns)
	}
}
