package event

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBoundCutsEveryString sets every string field of an Event — found by
// reflection, so a field added later without a bound fails here — to 3 MB
// and checks that none is left longer than its limit, on the wire too.
func TestBoundCutsEveryString(t *testing.T) {
	huge := strings.Repeat("é", 3<<20/2) // 3 MB of two-byte runes: a cut must not split one
	var e Event
	v := reflect.ValueOf(&e).Elem()
	var names []string
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String {
			f.SetString(huge)
			names = append(names, v.Type().Field(i).Name)
		}
	}
	if len(names) < 14 {
		t.Fatalf("only %d string fields found: %v", len(names), names)
	}
	e.Bound()
	limit := map[string]int{"Content": MaxText, "Input": MaxText, "Output": MaxText, "Path": MaxPath, "Reason": MaxNote,
		"Args": MaxText, "Result": MaxText, "URL": MaxPath, "Error": MaxNote}
	for _, name := range names {
		s := v.FieldByName(name).String()
		want, ok := limit[name]
		if !ok {
			want = MaxID
		}
		if n := utf8.RuneCountInString(s); n > want || !utf8.ValidString(s) {
			t.Errorf("%s: %d runes (valid %v), want at most %d", name, n, utf8.ValidString(s), want)
		}
	}
	if !e.Truncated || !e.TruncIn || !e.TruncOut {
		t.Errorf("truncated flags: %v %v %v", e.Truncated, e.TruncIn, e.TruncOut)
	}
	for _, typ := range []string{ToolUse, ToolResult, TurnComplete, Status, Session, User, Browse} {
		e.Type = typ
		b, _ := json.Marshal(e)
		if len(b) > 16<<10 {
			t.Errorf("%s event is %d bytes on the wire", typ, len(b))
		}
	}
}

func TestBoundKeepsWhatFits(t *testing.T) {
	e := Event{Type: ToolUse, Name: "Bash", ToolUseID: "toolu_01", Input: "ls", SessionID: "s1",
		Model: "claude-sonnet-4-5", Reason: "permission_prompt", Path: "/p/s1.jsonl"}
	want := e
	e.Bound()
	if e != want {
		t.Errorf("Bound changed an event within limits: %+v", e)
	}
}
