package eventtest

import (
	"slices"
	"testing"

	"conductorbridge/bridge/event"
)

// echo makes one user event of each line it is fed.
type echo struct{}

func (echo) Line(line []byte, out []event.Event) ([]event.Event, error) {
	return append(out, event.Event{Type: event.User, Content: string(line)}), nil
}

func TestParseAppendsEachLinesEvents(t *testing.T) {
	out := Parse(t, echo{}, [][]byte{[]byte("b"), []byte("c")}, []event.Event{{Content: "a"}})
	var got []string
	for _, e := range out {
		got = append(got, e.Content)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}
