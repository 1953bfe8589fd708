package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBenchNewSessionsListsEach runs the bench's new-sessions step on a
// small real home served by the real binary: twenty sessions begun at
// random moments of a few seconds, Claude Code in a known project and in
// new folders, Codex in new folders, and each is listed by
// /api/workspaces/{id}, as a client sees it. What is asserted is that
// each was listed (how soon is the bench's figure, not the test's).
func TestBenchNewSessionsListsEach(t *testing.T) {
	root := t.TempDir()
	b := benchRealHome{conductor: 2, projects: 3, rollouts: 2}
	h, err := makeRealHome(root, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, _, err := startStreaming(ctx, binary, root, h.workspaces, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	known := []string{filepath.Join(root, "src", "project001")}
	r := &benchReport{}
	sessions, err := runNewSessions(ctx, r, c, root, known, 20, 5*time.Second, time.Minute, 1)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for i, s := range sessions {
		kinds[s.kind]++
		if s.listed <= 0 {
			t.Errorf("session %d (%s in %s, %s) was never listed", i, s.kind, s.dir, s.id)
		}
	}
	for _, k := range newSessionKinds {
		if kinds[k] < 6 {
			t.Errorf("%d sessions of kind %q, want a third of 20", kinds[k], k)
		}
	}
	if len(r.Figures) != 3 {
		t.Fatalf("figures %+v, want p50, p99 and max", r.Figures)
	}
	for _, f := range r.Figures {
		t.Logf("%s: %.1f %s (logged, not asserted)", f.Name, f.Value, f.Unit)
		if !f.Known || f.Unit != "ms" || !strings.Contains(f.Conditions, "20 of 20 listed") {
			t.Errorf("%s: %v %s known=%v (%s)", f.Name, f.Value, f.Unit, f.Known, f.Conditions)
		}
	}
}
