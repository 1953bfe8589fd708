package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// TestOnlyRecentTranscriptsAreSessions: in a plain project every transcript
// written within the active window is a live session, and an older one is
// not, until it is written to again.
func TestOnlyRecentTranscriptsAreSessions(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("window")
	const old, a, b = "0d0d0d0d-0000-4000-8000-0000000000d0", "aaaaaaaa-0000-4000-8000-0000000000a0", "bbbbbbbb-0000-4000-8000-0000000000b0"
	for _, id := range []string{old, a, b} {
		cwdOf[id] = dir
		h.write(filepath.Join(proj, id+".jsonl"), prompt(id, "hello from "+id[:8]))
	}
	// Last written an hour ago, well outside the 10-minute window.
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(proj, old+".jsonl"), hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	r := h.start()
	id := r.waitWorkspace(t, dir)
	ids := func() []string {
		in, _ := r.eng.Workspace(id)
		var out []string
		for _, s := range in.Sessions {
			out = append(out, s.SessionID)
		}
		slices.Sort(out)
		return out
	}
	waitFor(t, "the two recent sessions", func() bool { return slices.Equal(ids(), []string{a, b}) })
	r.eng.Rescan(context.Background())
	time.Sleep(200 * time.Millisecond) // a rescan must not bring the old one in either
	if got := ids(); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("sessions %v, want only the recent %v", got, []string{a, b})
	}

	// The old session is resumed: written again, it is live again.
	h.write(filepath.Join(proj, old+".jsonl"), prompt(old, "back again"))
	r.eng.Rescan(context.Background())
	waitFor(t, "the resumed session", func() bool { return slices.Equal(ids(), []string{old, a, b}) })
	r.collect(t, id, 0, has(event.User, "back again"))
}
