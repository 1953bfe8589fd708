package agent

import (
	"testing"

	"conductorbridge/bridge/event"
)

func TestInterrupt(t *testing.T) {
	for _, tt := range []struct {
		name        string
		spent       bool
		ended       []event.Event // what the parser's end appends
		wantDropped bool
		want        []event.Event
	}{
		{name: "nothing spent: forgotten, no event", wantDropped: true},
		{
			name:  "spent: its turn_complete is marked",
			spent: true,
			ended: []event.Event{{Type: event.TurnComplete, Model: "m"}},
			want:  []event.Event{{Type: event.User}, {Type: event.TurnComplete, Model: "m", Interrupted: true}},
		},
		{
			name:  "spent: only the turn_complete is marked",
			spent: true,
			ended: []event.Event{{Type: event.Assistant}, {Type: event.TurnComplete}},
			want:  []event.Event{{Type: event.User}, {Type: event.Assistant}, {Type: event.TurnComplete, Interrupted: true}},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := []event.Event{{Type: event.User}}
			dropped := false
			got := Interrupt(out, tt.spent, func() { dropped = true },
				func(out []event.Event) []event.Event { return append(out, tt.ended...) })
			if dropped != tt.wantDropped {
				t.Errorf("dropped = %v, want %v", dropped, tt.wantDropped)
			}
			want := tt.want
			if want == nil {
				want = out
			}
			if len(got) != len(want) {
				t.Fatalf("got %d events %+v, want %+v", len(got), got, want)
			}
			for i := range want {
				if got[i].Type != want[i].Type || got[i].Interrupted != want[i].Interrupted || got[i].Model != want[i].Model {
					t.Errorf("event %d = %+v, want %+v", i, got[i], want[i])
				}
			}
		})
	}
}
