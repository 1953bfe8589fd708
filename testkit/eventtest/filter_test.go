package eventtest

import (
	"slices"
	"testing"

	"conductorbridge/bridge/event"
)

func TestFilters(t *testing.T) {
	evs := []event.Event{
		{ID: 1, Type: event.Session, SessionID: "a"},
		{ID: 2, Type: event.User, SessionID: "a"},
		{ID: 3, Type: event.Status, SessionID: "a", State: event.StateWorking},
		{ID: 4, Type: event.User, SessionID: "b"},
		{ID: 5, Type: event.TurnComplete, SessionID: "a"},
		{ID: 6, Type: event.Status, SessionID: "b", State: event.StateWorking},
		{ID: 7, Type: event.Status, SessionID: "a", State: event.StateIdle},
		{ID: 8, Type: event.TurnComplete, SessionID: "b"},
	}
	ids := func(evs []event.Event) []int64 {
		var out []int64
		for _, e := range evs {
			out = append(out, e.ID)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		got  []event.Event
		want []int64
	}{
		{"turn_completes", OfType(evs, event.TurnComplete), []int64{5, 8}},
		{"users", OfType(evs, event.User), []int64{2, 4}},
		{"none of a type", OfType(evs, event.Browse), nil},
		{"session a without status and session events", OfSession(evs, "a"), []int64{2, 5}},
		{"session b", OfSession(evs, "b"), []int64{4, 8}},
		{"no such session", OfSession(evs, "c"), nil},
	} {
		if got := ids(tt.got); !slices.Equal(got, tt.want) {
			t.Errorf("%s: ids %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, tt := range []struct{ session, want string }{
		{"a", "idle"},
		{"b", "working"},
		{"c", ""},
	} {
		if got := LastStatus(evs, tt.session); got != tt.want {
			t.Errorf("LastStatus(%s) = %q, want %q", tt.session, got, tt.want)
		}
	}
}
