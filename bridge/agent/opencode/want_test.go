package opencode_test

import (
	"math"
	"testing"

	"conductorbridge/bridge/event"
)

// want is what a session's events must say, taken from the real run:
// what the fake model was sent and served, and OpenCode's own totals.
// Recorded beside each corpus file (testdata/<name>.want.json).
type want struct {
	Users     []string   `json:"users"`
	Thinking  []string   `json:"thinking"`
	Assistant []string   `json:"assistant"`
	Tools     []toolWant `json:"tools"`
	Turns     []turnWant `json:"turns"`
	Model     string     `json:"model"`
}

type toolWant struct {
	Name   string `json:"name"`
	Input  string `json:"input"`
	Output string `json:"output"`
}

type turnWant struct {
	Usage event.Usage `json:"usage"`
	Cost  float64     `json:"cost"`
}

// check compares a session's events with w.
func (w want) check(t *testing.T, evs []event.Event) {
	t.Helper()
	by := map[string][]event.Event{}
	for _, e := range evs {
		by[e.Type] = append(by[e.Type], e)
	}
	texts := func(typ string) []string {
		var s []string
		for _, e := range by[typ] {
			s = append(s, e.Content)
		}
		return s
	}
	if u := texts(event.User); !equal(u, w.Users) {
		t.Errorf("user %q, want %q", u, w.Users)
	}
	if th := texts(event.Thinking); !equal(th, w.Thinking) {
		t.Errorf("thinking %q, want %q", th, w.Thinking)
	}
	if as := texts(event.Assistant); !equal(as, w.Assistant) {
		t.Errorf("assistant %q, want %q", as, w.Assistant)
	}
	tu, tr := by[event.ToolUse], by[event.ToolResult]
	if len(tu) != len(w.Tools) || len(tr) != len(w.Tools) {
		t.Fatalf("tool_use %+v, tool_result %+v: want %d each", tu, tr, len(w.Tools))
	}
	for i, tw := range w.Tools {
		if tu[i].Name != tw.Name || tu[i].Input != tw.Input || tu[i].ToolUseID == "" {
			t.Errorf("tool_use %+v, want %s %q", tu[i], tw.Name, tw.Input)
		}
		if tr[i].ToolUseID != tu[i].ToolUseID || tr[i].Name != tw.Name || tr[i].Output != tw.Output || tr[i].IsError {
			t.Errorf("tool_result %+v, want %q for %s", tr[i], tw.Output, tu[i].ToolUseID)
		}
	}
	tc := by[event.TurnComplete]
	if len(tc) != len(w.Turns) {
		t.Fatalf("%d turn_complete, want %d", len(tc), len(w.Turns))
	}
	for i, tw := range w.Turns {
		e := tc[i]
		if e.Usage != tw.Usage || !e.CostKnown || math.Abs(e.CostUSD-tw.Cost) > 1e-12 || e.Model != w.Model || e.DurationMS <= 0 {
			t.Errorf("turn_complete %d %+v, want usage %+v cost %v model %s", i, e, tw.Usage, tw.Cost, w.Model)
		}
	}
	if evs[len(evs)-1].Type != event.TurnComplete {
		t.Errorf("the session's last event is %s", evs[len(evs)-1].Type)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
