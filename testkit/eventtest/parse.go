package eventtest

import (
	"testing"

	"conductorbridge/bridge/event"
)

// Liner is a parser's Line (agent.Parser's): it parses one line of a
// record and appends its events to out.
type Liner interface {
	Line(line []byte, out []event.Event) ([]event.Event, error)
}

// Parse feeds p lines in order and returns out with their events; a line
// p rejects fails the test, naming its index.
func Parse(t testing.TB, p Liner, lines [][]byte, out []event.Event) []event.Event {
	t.Helper()
	for i, l := range lines {
		var err error
		if out, err = p.Line(l, out); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}
	return out
}
