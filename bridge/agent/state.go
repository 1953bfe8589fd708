package agent

import (
	"encoding/json"
	"fmt"

	"conductorbridge/bridge/event"
)

// LoadState resumes a parser's state from saved, what its Save returned:
// empty or null saved leaves state as it is (a fresh parser). format names
// the record format in the error.
func LoadState(format string, saved json.RawMessage, state any) error {
	if len(saved) == 0 || string(saved) == "null" {
		return nil
	}
	if err := json.Unmarshal(saved, state); err != nil {
		return fmt.Errorf("resume %s parser: %w", format, err)
	}
	return nil
}

// SaveState is a parser's Save of its state: the JSON LoadState takes.
func SaveState(format string, state any) (json.RawMessage, error) {
	data, err := json.Marshal(state)
	if err != nil {
		return nil, fmt.Errorf("save %s parser: %w", format, err)
	}
	return data, nil
}

// Interrupt is a Parser's Interrupt once it knows a turn is open: a turn
// that spent nothing is forgotten by drop and ends with no event; one
// that spent something ends with end's turn_complete, marked
// Interrupted.
func Interrupt(out []event.Event, spent bool, drop func(), end func([]event.Event) []event.Event) []event.Event {
	if !spent {
		drop()
		return out
	}
	n := len(out)
	out = end(out)
	for i := n; i < len(out); i++ {
		if out[i].Type == event.TurnComplete {
			out[i].Interrupted = true
		}
	}
	return out
}

// Explicit is embedded by a Parser whose record writes every turn's end
// (a result frame, a completed message): there is nothing to settle at
// the end of the file or after a quiet spell, and no end is inferred.
type Explicit struct{}

// Flush does nothing: turn ends are written, never inferred.
func (Explicit) Flush(out []event.Event) []event.Event { return out }

// Quiet does nothing, for the same reason.
func (Explicit) Quiet(out []event.Event) []event.Event { return out }

// Unsure is false: every turn's end is written.
func (Explicit) Unsure() bool { return false }
