package conductor

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
)

// recorder parses each followed tab's rows as the engine would and keeps
// the events, waking waiters on every delivery.
type recorder struct {
	mu      sync.Mutex
	parsers map[string]*Parser
	events  map[string][]event.Event
	rows    map[string][]int64
	bad     int
	note    chan struct{}
}

func newRecorder() *recorder {
	return &recorder{parsers: map[string]*Parser{}, events: map[string][]event.Event{}, rows: map[string][]int64{}, note: make(chan struct{}, 1)}
}

func (r *recorder) deliver(tab string, rows []Row) {
	r.mu.Lock()
	p := r.parsers[tab]
	if p == nil {
		p = &Parser{}
		r.parsers[tab] = p
	}
	for i := range rows {
		out, err := p.Line(rows[i].Line(), nil)
		if err != nil {
			r.bad++
		}
		r.events[tab] = append(r.events[tab], out...)
		r.rows[tab] = append(r.rows[tab], rows[i].RowID)
	}
	r.mu.Unlock()
	select {
	case r.note <- struct{}{}:
	default:
	}
}

// wait returns tab's events once ok holds for them; it fails the test
// after 30 s.
func (r *recorder) wait(t *testing.T, tab string, ok func([]event.Event) bool) []event.Event {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		evs := append([]event.Event(nil), r.events[tab]...)
		r.mu.Unlock()
		if ok(evs) {
			return evs
		}
		select {
		case <-r.note:
		case <-deadline:
			t.Fatalf("%s: still waiting after 30 s; events:\n%s", tab, describe(evs))
		}
	}
}

// turns waits for n turn_complete events of tab.
func (r *recorder) turns(t *testing.T, tab string, n int) []event.Event {
	t.Helper()
	return r.wait(t, tab, func(evs []event.Event) bool { return count(evs, event.TurnComplete) >= n })
}

func count(evs []event.Event, typ string) int {
	n := 0
	for _, e := range evs {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// run starts a Follower on path for tabs, and stops it when the test
// ends.
func (r *recorder) run(t *testing.T, path string, tabs map[string]Cursor) *Follower {
	t.Helper()
	f := NewFollower(path, Options{Deliver: r.deliver, Logf: t.Logf})
	for tab, at := range tabs {
		f.Follow(tab, at)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return f
}

// newDB makes a database of the shape with tabs (id → agent type) in one
// workspace.
func newDB(t *testing.T, shape conductordb.Shape, tabs ...string) *conductordb.Writer {
	t.Helper()
	w, err := conductordb.Create(filepath.Join(t.TempDir(), "conductor.db"), shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	for i := 0; i+1 < len(tabs); i += 2 {
		if err := w.AddTab(shape, "w-tokyo", tabs[i], tabs[i+1], "Tab "+tabs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// write appends rows to tab: a string is a typed prompt, anything else a
// frame, marshalled as Conductor stores it.
func write(t *testing.T, w *conductordb.Writer, tab string, rows ...any) {
	t.Helper()
	for _, r := range rows {
		role, content := "user", ""
		switch v := r.(type) {
		case string:
			content = v
		case json.RawMessage:
			role, content = "assistant", string(v)
		default:
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			role, content = "assistant", string(b)
		}
		if _, err := w.Message(tab, role, content); err != nil {
			t.Fatal(err)
		}
	}
}

type obj = map[string]any

// describe lists events compactly for failure messages and comparisons.
func describe(evs []event.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(brief(e))
		b.WriteByte('\n')
	}
	return b.String()
}

// brief is one event's type and the fields its type carries.
func brief(e event.Event) string {
	side := ""
	if e.Sidechain {
		side = " (side)"
	}
	switch e.Type {
	case event.Assistant, event.Thinking, event.User:
		sys := ""
		if e.System {
			sys = " system"
		}
		return fmt.Sprintf("%s%s%s %q cut=%v", e.Type, side, sys, e.Content, e.Truncated)
	case event.ToolUse:
		return fmt.Sprintf("tool_use%s %s %s %q cut=%v", side, e.ToolUseID, e.Name, e.Input, e.TruncIn)
	case event.ToolResult:
		return fmt.Sprintf("tool_result%s %s %s %q cut=%v err=%v", side, e.ToolUseID, e.Name, e.Output, e.TruncOut, e.IsError)
	case event.TurnComplete:
		cost := "unknown"
		if e.CostKnown {
			cost = fmt.Sprintf("$%.4f", e.CostUSD)
		}
		took := ""
		if e.DurationMS != 0 {
			took = fmt.Sprintf(" %dms", e.DurationMS)
		}
		if e.Interrupted {
			took += " interrupted"
		}
		return fmt.Sprintf("turn_complete %s%s in=%d out=%d model=%s", cost, took, e.Usage.InputTokens, e.Usage.OutputTokens, e.Model)
	}
	return e.Type
}

func itoa(n int64) string { return fmt.Sprint(n) }
