package opencode_test

import (
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/eventtest"
)

// TestFollowerStreamsWhileOpenCodeCommits: rows committed one by one (as
// OpenCode commits them) reach the parser in order, each once, while the
// writer never waits for a lock; a second session's rows go to no one
// until it is followed, and then from its start.
func TestFollowerStreamsWhileOpenCodeCommits(t *testing.T) {
	c := corpora(t)[0]
	w := newWriter(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var mu sync.Mutex
	parsers := map[string]*opencode.Parser{}
	evs := map[string][]event.Event{}
	got := make(chan struct{}, 1024)
	f := opencode.NewFollower(w.path, opencode.FollowOptions{Poll: time.Hour, Deliver: func(s string, rows []opencode.Row) {
		mu.Lock()
		defer mu.Unlock()
		p := parsers[s]
		for _, r := range rows {
			var err error
			if evs[s], err = p.Line(r.Line(), evs[s]); err != nil {
				t.Errorf("%s row %d: %v", s, r.Seq, err)
			}
		}
		got <- struct{}{}
	}})
	for _, s := range []string{"ses_a", "ses_b"} {
		parsers[s], _ = opencode.NewParser(nil)
	}
	f.Follow("ses_a", 0)
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	for i, l := range c.lines {
		if err := w.commit(ctx, "ses_a", l); err != nil {
			t.Fatalf("OpenCode's commit %d failed: %v", i, err)
		}
		if err := w.commit(ctx, "ses_b", l); err != nil {
			t.Fatalf("OpenCode's commit %d failed: %v", i, err)
		}
	}
	waitFor(t, got, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return parsers["ses_a"].Next() == int64(len(c.lines))
	})
	f.Follow("ses_b", 0)
	waitFor(t, got, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return parsers["ses_b"].Next() == int64(len(c.lines))
	})
	cancel()
	<-done
	whole := eventtest.Parse(t, mustParser(t), c.lines, nil)
	for _, s := range []string{"ses_a", "ses_b"} {
		if !reflect.DeepEqual(evs[s], whole) {
			t.Errorf("%s: %d events, want the corpus's %d", s, len(evs[s]), len(whole))
		}
	}
}

func mustParser(t *testing.T) *opencode.Parser {
	p, err := opencode.NewParser(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// waitFor waits, on each delivery, until done holds.
func waitFor(t *testing.T, got <-chan struct{}, done func() bool) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for !done() {
		select {
		case <-got:
		case <-deadline:
			t.Fatal("the rows never all arrived")
		}
	}
}
