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
	User       string      `json:"user"`
	Thinking   []string    `json:"thinking"`
	Assistant  []string    `json:"assistant"`
	Tool       string      `json:"tool"`
	ToolInput  string      `json:"tool_input"`
	ToolOutput string      `json:"tool_output"`
	Usage      event.Usage `json:"usage"`
	Cost       float64     `json:"cost"`
	Model      string      `json:"model"`
}

// check compares one turn's events with w.
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
	if u := texts(event.User); len(u) != 1 || u[0] != w.User {
		t.Errorf("user %q, want %q", u, w.User)
	}
	if th := texts(event.Thinking); !equal(th, w.Thinking) {
		t.Errorf("thinking %q, want %q", th, w.Thinking)
	}
	if as := texts(event.Assistant); !equal(as, w.Assistant) {
		t.Errorf("assistant %q, want %q", as, w.Assistant)
	}
	tu, tr := by[event.ToolUse], by[event.ToolResult]
	if len(tu) != 1 || len(tr) != 1 {
		t.Fatalf("tool_use %+v, tool_result %+v: want one each", tu, tr)
	}
	if tu[0].Name != w.Tool || tu[0].Input != w.ToolInput || tu[0].ToolUseID == "" {
		t.Errorf("tool_use %+v, want %s %q", tu[0], w.Tool, w.ToolInput)
	}
	if tr[0].ToolUseID != tu[0].ToolUseID || tr[0].Name != w.Tool || tr[0].Output != w.ToolOutput || tr[0].IsError {
		t.Errorf("tool_result %+v, want %q for %s", tr[0], w.ToolOutput, tu[0].ToolUseID)
	}
	tc := by[event.TurnComplete]
	if len(tc) != 1 {
		t.Fatalf("%d turn_complete, want 1", len(tc))
	}
	if tc[0].Usage != w.Usage || !tc[0].CostKnown || math.Abs(tc[0].CostUSD-w.Cost) > 1e-12 || tc[0].Model != w.Model || tc[0].DurationMS <= 0 {
		t.Errorf("turn_complete %+v, want usage %+v cost %v model %s", tc[0], w.Usage, w.Cost, w.Model)
	}
	if evs[len(evs)-1].Type != event.TurnComplete {
		t.Errorf("the turn's last event is %s", evs[len(evs)-1].Type)
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
