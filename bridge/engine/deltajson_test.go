package engine

import (
	"encoding/json"
	"testing"
	"time"
)

// A delta encodes exactly as encoding/json encodes the same fields (the
// journal's older lines were written so, and a restart reads both).
func TestDeltaEncodesAsEncodingJSON(t *testing.T) {
	// reference is the delta's fields with encoding/json's own encoder.
	type refDelta struct {
		Sessions map[string]struct {
			Offset int64            `json:"o,omitempty"`
			Subs   map[string]int64 `json:"sub,omitempty"`
			Status *statusDelta     `json:"st,omitempty"`
			LastID int64            `json:"l,omitempty"`
		} `json:"s"`
	}
	since := time.Date(2026, 3, 4, 5, 6, 7, 890, time.FixedZone("x", 3600))
	for _, tt := range []struct {
		name string
		d    delta
	}{
		{"nil", delta{}},
		{"empty", delta{Sessions: map[string]sessionDelta{}}},
		{"one moved", delta{Sessions: map[string]sessionDelta{"a": {Offset: 123}}}},
		{"all fields", delta{Sessions: map[string]sessionDelta{
			"b<&>\u2028": {Offset: 9, Subs: map[string]int64{"agent-2.jsonl": 5, "agent-1.jsonl": 7}, Status: &statusDelta{State: "working", Reason: "", Since: since}, LastID: 42},
			"a":          {Status: &statusDelta{State: "needs_input", Reason: "question \"why\"", Since: time.Time{}}},
			"c":          {LastID: 7, Subs: map[string]int64{}},
		}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.d.MarshalJSON() // as the engine calls it: encoding/json does not compact it again
			if err != nil {
				t.Fatal(err)
			}
			var ref refDelta
			if tt.d.Sessions != nil {
				ref.Sessions = make(map[string]struct {
					Offset int64            `json:"o,omitempty"`
					Subs   map[string]int64 `json:"sub,omitempty"`
					Status *statusDelta     `json:"st,omitempty"`
					LastID int64            `json:"l,omitempty"`
				})
				for id, sd := range tt.d.Sessions {
					ref.Sessions[id] = struct {
						Offset int64            `json:"o,omitempty"`
						Subs   map[string]int64 `json:"sub,omitempty"`
						Status *statusDelta     `json:"st,omitempty"`
						LastID int64            `json:"l,omitempty"`
					}{sd.Offset, sd.Subs, sd.Status, sd.LastID}
				}
			}
			want, err := json.Marshal(ref)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			var back delta
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("read back: %v", err)
			}
		})
	}
}
