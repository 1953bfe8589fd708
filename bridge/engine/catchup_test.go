package engine

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
)

// A session that began while the bridge was down streams in full after a
// restart, as if the bridge had been running: its prompt, its answer and
// its turn_complete come after the last id a client saw.
func TestSessionBornWhileDownIsPublished(t *testing.T) {
	h := newHome(t)
	const a, b = "aaaaaaaa-2222-4222-8222-0000000000a1", "bbbbbbbb-2222-4222-8222-0000000000b1"
	dir, pa, pb := h.twoSessions("downtime", a, b)
	h.write(pa, prompt(a, "one"), answer(a, "m1", "a1", "end_turn"))
	after := h.acrossRestart(t, dir, b, 2, nil, func() {
		h.write(pb, twoTurns(b, "born while down", "answered while down", "a long one")...)
	})
	got := summary(after)
	wantIn(t, got, "user:born while down", "assistant:answered while down", "user:a long one")
	if strings.Contains(got, "user:one") {
		t.Errorf("the known session was read again: %s", got)
	}
}

// acrossRestart starts the engine (tuned by tune; nil: as it is) and
// waits for workspace dir's first turn; stops it, has down write what
// agents write while the bridge is down, and starts it again. It returns
// the events after the last id a client saw before the stop, once session
// has turns turn_completes among them.
func (h *home) acrossRestart(t *testing.T, dir, session string, turns int, tune func(*Config), down func()) []event.Event {
	t.Helper()
	r := h.startWith(tune)
	id, seen := r.firstTurn(t, dir)
	r.stop()
	down()
	r2 := h.startWith(tune)
	r2.waitWorkspace(t, dir)
	return r2.collect(t, id, seen, func(evs []event.Event) bool { return countTurns(evs, session) >= turns })
}

// twoTurns is two turns of sid stamped now, together longer than the cold
// start's tail (4 KiB here): the prompt first and its answer reply, then
// the prompt second and a long answer.
func twoTurns(sid, first, reply, second string) []string {
	return []string{now(prompt(sid, first)), now(answer(sid, "m2", reply, "end_turn")),
		now(prompt(sid, second)), now(answer(sid, "m3", strings.Repeat("long ", 2000), "end_turn"))}
}

// wantIn fails the test for each of wants that got (a summary) lacks.
func wantIn(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s: %s", want, got)
		}
	}
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
	const a, c = "aaaaaaaa-3333-4333-8333-0000000000a1", "cccccccc-3333-4333-8333-0000000000c1"
	dir, pa, old := h.twoSessions("resumed", a, c)
	h.write(old, prompt(c, "yesterday"), answer(c, "m0", strings.Repeat("old ", 2000), "end_turn"))
	day := time.Now().Add(-24 * time.Hour)
	os.Chtimes(old, day, day)
	h.write(pa, now(prompt(a, "one")), now(answer(a, "m1", "a1", "end_turn")))
	after := h.acrossRestart(t, dir, c, 2, nil, func() {
		// Read as an old transcript's tail, the first would be lost.
		h.write(old, twoTurns(c, "today", "resumed while down", "a long one")...)
	})
	got := summary(after)
	wantIn(t, got, "user:today", "assistant:resumed while down", "user:a long one")
	if strings.Contains(got, "yesterday") || countTurns(after, c) != 2 {
		t.Errorf("history published again: %s", got)
	}
}

// A session that places its own workspace (a plain folder no workspace
// had: the bridge learns of it from the transcript's cwd) is read from its
// start, however late the scan that placed it ran, while the bridge was
// up: here the whole transcript, far longer than the tail an old one
// gets, appears at once, as if every scan had missed it until its turns
// were done. Failed before: the workspace's first read took the record
// for history and read only its last 4 KiB (the subagent end-to-end test
// lost its turn's first responses this way on a loaded machine).
func TestSessionThatPlacesItsWorkspaceLateIsReadWhole(t *testing.T) {
	h := newHome(t)
	const k = "cccccccc-2222-4222-8222-0000000000c1"
	known, pk := h.session("known", k)
	h.write(pk, prompt(k, "known"))
	r := h.start()
	r.waitWorkspace(t, known)

	dir := filepath.Join(h.root, "work", "late")
	os.MkdirAll(dir, 0o755)
	const s = "dddddddd-2222-4222-8222-0000000000d1"
	cwdOf[s] = dir
	proj := filepath.Join(h.projects, claude.EncodeProjectDir(dir))
	os.MkdirAll(proj, 0o755)
	h.moveIn(filepath.Join(proj, s+".jsonl"), twoTurns(s, "first prompt", "first answer", "second prompt")...)
	id := r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, func(evs []event.Event) bool { return countTurns(evs, s) >= 2 })
	wantIn(t, summary(evs), "user:first prompt", "assistant:first answer", "user:second prompt")

	// The same in a workspace already followed: a session whose folder
	// event came too late is read from where it stood when the bridge
	// began following, its start here.
	const s2 = "dddddddd-2222-4222-8222-0000000000d2"
	_, p2 := h.session("known", s2)
	h.moveIn(p2, twoTurns(s2, "third prompt", "third answer", "fourth prompt")...)
	kid := r.waitWorkspace(t, known)
	evs = r.collect(t, kid, 0, func(evs []event.Event) bool { return countTurns(evs, s2) >= 2 })
	if got := summary(evs); !strings.Contains(got, "user:third prompt") || !strings.Contains(got, "assistant:third answer") {
		t.Errorf("a followed workspace's late session lost its start: %s", got)
	}
}

// A transcript whose lines are all stamped long before the bridge
// started, moved into a followed folder (a copy, a restore), is read as an
// old transcript is: its tail, not nothing and not all of it.
func TestOldStampedRecordSeenLateGetsItsTail(t *testing.T) {
	h := newHome(t)
	const k, s = "eeeeeeee-2222-4222-8222-0000000000e1", "ffffffff-2222-4222-8222-0000000000f1"
	dir, pk, ps := h.twoSessions("restored", k, s)
	h.write(pk, prompt(k, "here first"))
	r := h.start()
	id := r.waitPrompt(t, dir, "here first")

	h.moveIn(ps, longHistory(s)...)
	evs := r.collect(t, id, 0, has(event.User, "recent"))
	if strings.Contains(summary(evs), "ancient history") {
		t.Error("an old record seen late was read whole")
	}
}
