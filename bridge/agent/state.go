package agent

import (
	"encoding/json"
	"fmt"
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
