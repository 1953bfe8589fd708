package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"conductorbridge/bridge/event"
)

// The subagents of a session read in one batch stream in the order of
// their files' names, however they were found: listed at a start, or
// resumed from the journal after a restart (the mark keeps them in a
// map). One whose file is deleted is read no more, while the others, and
// one made later, go on streaming.
func TestSubagentsStreamInTheirFilesOrder(t *testing.T) {
	h := newHome(t)
	const sid = "aaaaaaaa-9999-4999-8999-0000000000a1"
	dir, main := h.session("order", sid)
	h.write(main, prompt(sid, "delegate"))
	subDir := filepath.Join(filepath.Dir(main), sid, "subagents")
	os.MkdirAll(subDir, 0o755)
	names := []string{"agent-f", "agent-c", "agent-e", "agent-a", "agent-d", "agent-b"} // made in this order
	sorted := slices.Sorted(slices.Values(names))
	for _, n := range names {
		h.write(filepath.Join(subDir, n+".jsonl"), sideLine(dir, n))
	}
	r := h.start()
	id := r.waitWorkspace(t, dir)
	evs := r.collect(t, id, 0, func(evs []event.Event) bool { return len(sidechain(evs)) == len(names) })
	if got, want := fmt.Sprint(sidechain(evs)), fmt.Sprint(sorted); got != want {
		t.Errorf("subagents streamed in the order %s, want %s", got, want)
	}
	last := evs[len(evs)-1].ID

	// Each writes a line while the bridge is down: the restart reads
	// them all in its first batch.
	r.stop()
	var again []string
	for _, n := range names {
		h.write(filepath.Join(subDir, n+".jsonl"), sideLine(dir, n+" again"))
	}
	for _, n := range sorted {
		again = append(again, n+" again")
	}
	r = h.start()
	r.waitWorkspace(t, dir)
	evs = r.collect(t, id, last, func(evs []event.Event) bool { return len(sidechain(evs)) == len(names) })
	if got, want := fmt.Sprint(sidechain(evs)), fmt.Sprint(again); got != want {
		t.Errorf("after a restart, subagents streamed in the order %s, want %s", got, want)
	}
	last = evs[len(evs)-1].ID

	if err := os.Remove(filepath.Join(subDir, "agent-c.jsonl")); err != nil {
		t.Fatal(err)
	}
	h.write(filepath.Join(subDir, "agent-0.jsonl"), sideLine(dir, "agent-0"))
	h.write(filepath.Join(subDir, "agent-d.jsonl"), sideLine(dir, "agent-d 3"))
	evs = r.collect(t, id, last, func(evs []event.Event) bool { return len(sidechain(evs)) == 2 })
	if got := sidechain(evs); !slices.Contains(got, "agent-0") || !slices.Contains(got, "agent-d 3") {
		t.Errorf("then streamed %v, want agent-0 and agent-d 3", got)
	}
}

// sidechain is the text of the subagent events in evs, in order.
func sidechain(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Sidechain && e.Type == event.Assistant {
			out = append(out, e.Content)
		}
	}
	return out
}
