package engine

import (
	"testing"

	"conductorbridge/bridge/event"
)

// TestReuseLetsTheTextGo: the batch a workspace keeps for its next sync
// holds no event of the last one (their text would stay alive in every
// idle workspace), and a backlog's large batch is not kept at all.
func TestReuseLetsTheTextGo(t *testing.T) {
	for _, tt := range []struct {
		name    string
		n       int
		wantNil bool
	}{{"small batch", 3, false}, {"backlog batch", maxKeptBatch + 1, true}} {
		t.Run(tt.name, func(t *testing.T) {
			evs := make([]event.Event, tt.n)
			for i := range evs {
				evs[i] = event.Event{Type: event.Assistant, Content: "a long answer"}
			}
			got := reuse(evs)
			if tt.wantNil {
				if got != nil {
					t.Errorf("kept a batch of capacity %d", cap(got))
				}
				return
			}
			if len(got) != 0 || cap(got) != tt.n {
				t.Fatalf("len %d cap %d, want an empty batch on the same array", len(got), cap(got))
			}
			for i, e := range got[:tt.n] {
				if e.Content != "" || e.Type != "" {
					t.Errorf("event %d still held: %+v", i, e)
				}
			}
		})
	}
}
