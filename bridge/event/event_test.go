package event

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"hello", 10, "hello", false},
		{"hello", 5, "hello", false},
		{"hello", 3, "hel", true},
		{"héllo", 2, "hé", true},
		{"日本語テキスト", 3, "日本語", true},
		{"👍👍👍", 1, "👍", true},
		{"", 0, "", false},
	}
	for _, tt := range tests {
		got, cut := Cut(tt.in, tt.n)
		if got != tt.want || cut != tt.cut || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, %v", tt.in, tt.n, got, cut)
		}
		got, cut = CutBytes([]byte(tt.in), tt.n)
		if got != tt.want || cut != tt.cut || !utf8.ValidString(got) {
			t.Errorf("CutBytes(%q, %d) = %q, %v", tt.in, tt.n, got, cut)
		}
	}
}

func TestJSONRoundTripPerType(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	evs := []Event{
		{ID: 1, Type: Assistant, TS: ts, SessionID: "s", Content: "hi", Sidechain: true},
		{ID: 2, Type: User, TS: ts, Content: "do it", MessageID: "m-1"},
		{ID: 3, Type: ToolUse, TS: ts, Name: "Bash", ToolUseID: "t", Input: "ls"},
		{ID: 4, Type: ToolResult, TS: ts, Name: "Bash", ToolUseID: "t", Output: "x", TruncOut: true, IsError: true},
		{ID: 5, Type: TurnComplete, TS: ts, Usage: Usage{1, 2, 3, 4, 0, 0}, CostUSD: 0.5, CostKnown: true, DurationMS: 9, Model: "m"},
		{ID: 6, Type: Status, TS: ts, State: StateNeedsInput, Reason: "permission_prompt"},
		{ID: 7, Type: Session, TS: ts, SessionID: "s2", Path: "/p.jsonl"},
		{ID: 8, Type: Pairing, TS: ts, Workspace: "w1", Paired: true},
		{ID: 8, Type: Session, TS: ts, Workspace: "w1", Paired: true, Reason: FollowReason},
		{ID: 9, Type: Pairing, TS: ts, Workspace: "w1"},
		{ID: 8, Type: Gap, GapFrom: 1, AvailableFrom: 5},
		{ID: 10, Type: Browse, TS: ts, Action: BrowseStart, Command: "goto", Args: "https://example.com", URL: "about:blank", BrowseID: 3},
		{ID: 11, Type: Browse, TS: ts, Action: BrowseEnd, Command: "goto", Args: "https://example.com", URL: "https://example.com/",
			OK: true, Result: "Navigated to https://example.com/ (200)", DurationMS: 412, BrowseID: 4},
		{ID: 12, Type: Browse, TS: ts, Action: BrowseEnd, Command: "click", Args: "@e3", Error: "element not found", DurationMS: 5, BrowseID: 5},
		{ID: 13, Type: Browse, TS: ts, Action: BrowseNavigation, URL: "https://example.com/next", BrowseID: 6},
		{ID: 14, Type: Browse, TS: ts, Action: BrowseError, Command: "tab-guardrail", Error: "too many tabs", BrowseID: 7},
		{ID: 15, Type: Browse, TS: ts, Action: BrowseGap, GapFrom: 8, AvailableFrom: 40},
	}
	for _, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Event
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if back != e {
			t.Errorf("%s: round trip\n got %+v\nwant %+v\njson %s", e.Type, back, e, b)
		}
	}
	// Fields of other types never leak into an event's JSON, and the
	// false flags a client checks are present.
	b, _ := json.Marshal(Event{ID: 3, Type: ToolUse, Name: "Bash", Input: "ls", Output: "secret", Content: "x"})
	s := string(b)
	if strings.Contains(s, "secret") || strings.Contains(s, `"content"`) || !strings.Contains(s, `"truncated_input":false`) {
		t.Errorf("tool_use JSON: %s", s)
	}
	b, _ = json.Marshal(Event{ID: 4, Type: ToolResult})
	if !strings.Contains(string(b), `"is_error":false`) || !strings.Contains(string(b), `"truncated_output":false`) {
		t.Errorf("tool_result JSON: %s", b)
	}
	// A browse event's outcome is present even when false, on the actions
	// that have one; a start has none, and no agent's fields.
	b, _ = json.Marshal(Event{ID: 9, Type: Browse, Action: BrowseEnd, Command: "click", Error: "no such element", Content: "x"})
	if s := string(b); !strings.Contains(s, `"ok":false`) || !strings.Contains(s, `"duration_ms":0`) ||
		!strings.Contains(s, `"browse_id":0`) || strings.Contains(s, "content") {
		t.Errorf("browse end JSON: %s", s)
	}
	b, _ = json.Marshal(Event{ID: 9, Type: Browse, Action: BrowseStart, Command: "goto", BrowseID: 3})
	if s := string(b); strings.Contains(s, `"ok"`) || strings.Contains(s, "duration_ms") {
		t.Errorf("browse start JSON: %s", s)
	}
	b, _ = json.Marshal(Event{ID: 8, Type: Gap, GapFrom: 1, AvailableFrom: 5})
	if !strings.Contains(string(b), `"gapFrom":1`) || !strings.Contains(string(b), `"availableFrom":5`) {
		t.Errorf("gap JSON: %s", b)
	}
}

func TestUnknownCostIsNullNotZero(t *testing.T) {
	b, err := json.Marshal(Event{ID: 1, Type: TurnComplete, Model: "mystery-model"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"cost_usd":null`) || !strings.Contains(string(b), `"cost_known":false`) {
		t.Fatalf("unknown cost must be null and cost_known false: %s", b)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil || back.CostKnown {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	b, _ = json.Marshal(Event{ID: 2, Type: Assistant, Content: "x"})
	if strings.Contains(string(b), "cost") {
		t.Fatalf("cost on a non-turn event: %s", b)
	}
}
