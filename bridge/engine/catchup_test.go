package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// A session that began while the bridge was down streams in full after a
// restart, as if the bridge had been running: its prompt, its answer and
// its turn_complete come after the last id a client saw.
func TestSessionBornWhileDownIsPublished(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("downtime")
	const a, b = "aaaaaaaa-2222-4222-8222-0000000000a1", "bbbbbbbb-2222-4222-8222-0000000000b1"
	cwdOf[a], cwdOf[b] = dir, dir
	h.write(filepath.Join(proj, a+".jsonl"), prompt(a, "one"), answer(a, "m1", "a1", "end_turn"))
	r := h.start()
	id := r.waitWorkspace(t, dir)
	before := r.collect(t, id, 0, has(event.TurnComplete, ""))
	seen := before[len(before)-1].ID
	r.stop()

	// Longer than the cold start's tail (4 KiB here), stamped now as the
	// agent stamps its lines.
	h.write(filepath.Join(proj, b+".jsonl"), now(prompt(b, "born while down")), now(answer(b, "m2", "answered while down", "end_turn")),
		now(prompt(b, "a long one")), now(answer(b, "m3", strings.Repeat("long ", 2000), "end_turn")))
	r2 := h.start()
	r2.waitWorkspace(t, dir)
	after := r2.collect(t, id, seen, func(evs []event.Event) bool { return countTurns(evs, b) >= 2 })
	got := summary(after)
	for _, want := range []string{"user:born while down", "assistant:answered while down", "user:a long one"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s: %s", want, got)
		}
	}
	if strings.Contains(got, "user:one") {
		t.Errorf("the known session was read again: %s", got)
	}
}

func countTurns(evs []event.Event, session string) int {
	n := 0
	for _, e := range evs {
		if e.Type == event.TurnComplete && e.SessionID == session {
			n++
		}
	}
	return n
}

var stamped = regexp.MustCompile(`"timestamp":"[^"]*"`)

// now restamps a test line with the present moment, as an agent stamps
// the lines it writes.
func now(line string) string {
	return stamped.ReplaceAllString(line, `"timestamp":"`+time.Now().UTC().Format(time.RFC3339Nano)+`"`)
}

// An old session nobody followed (last written a day ago), resumed while
// the bridge was down: what it gained streams after the restart, from where
// it stood — none of its day-old history is published again.
func TestSessionResumedWhileDownStreamsFromWhereItStood(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("resumed")
	const a, c = "aaaaaaaa-3333-4333-8333-0000000000a1", "cccccccc-3333-4333-8333-0000000000c1"
	cwdOf[a], cwdOf[c] = dir, dir
	old := filepath.Join(proj, c+".jsonl")
	h.write(old, prompt(c, "yesterday"), answer(c, "m0", strings.Repeat("old ", 2000), "end_turn"))
	day := time.Now().Add(-24 * time.Hour)
	os.Chtimes(old, day, day)
	h.write(filepath.Join(proj, a+".jsonl"), now(prompt(a, "one")), now(answer(a, "m1", "a1", "end_turn")))
	r := h.start()
	id := r.waitWorkspace(t, dir)
	before := r.collect(t, id, 0, has(event.TurnComplete, ""))
	seen := before[len(before)-1].ID
	r.stop()

	h.write(old, now(prompt(c, "today")), now(answer(c, "m2", "resumed while down", "end_turn")))
	r2 := h.start()
	r2.waitWorkspace(t, dir)
	after := r2.collect(t, id, seen, func(evs []event.Event) bool { return countTurns(evs, c) >= 1 })
	got := summary(after)
	if !strings.Contains(got, "user:today") || !strings.Contains(got, "assistant:resumed while down") {
		t.Errorf("missing the turn taken while down: %s", got)
	}
	if strings.Contains(got, "yesterday") || countTurns(after, c) != 1 {
		t.Errorf("history published again: %s", got)
	}
}
