package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
)

// A record written on the watcher's goroutine is read there only up to a
// bound: what a single large write appends beyond it is read on by a
// runner at once, not left for the next file event or the sweep (a
// minute here). A megabyte of prompts appended in one write all comes,
// in order.
func TestALargeWriteIsReadToItsEnd(t *testing.T) {
	h := newHome(t)
	sid := "22222222-2222-4333-8444-555555555555"
	r, id, path := h.followOne("large", sid, "p0")
	r.collect(t, id, 0, has(event.User, "p0"))

	const n = 500 // fewer than a subscriber's buffer holds: a batch of them is not cut loose
	pad := strings.Repeat("x", 2000)
	var b strings.Builder
	want := []string{"p0"}
	for i := 1; i <= n; i++ {
		b.WriteString(prompt(sid, fmt.Sprintf("p%d %s", i, pad)) + "\n")
		want = append(want, fmt.Sprintf("p%d", i))
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil { // one write, one file event
		t.Fatal(err)
	}
	users := func(evs []event.Event) []string {
		var got []string
		for _, e := range evs {
			if e.Type == event.User {
				got = append(got, strings.Fields(e.Content)[0]) // the rest is cut to a bound
			}
		}
		return got
	}
	evs := r.collect(t, id, 0, func(evs []event.Event) bool { return len(users(evs)) >= n+1 })
	if got := users(evs); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("prompts out of order: got %v", got)
	}
}
