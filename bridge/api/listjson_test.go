package api

import (
	"reflect"
	"testing"
	"time"
)

// fillAll sets every field of the struct v points to, however many there
// are, from seed: a field added to the wire types and not to the
// hand-written encoder shows in the comparison.
func fillAll(v reflect.Value, seed string, when time.Time) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(seed + v.Type().Field(i).Name)
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Struct:
			if f.Type() == reflect.TypeOf(time.Time{}) {
				f.Set(reflect.ValueOf(when.Add(time.Duration(i) * time.Millisecond)))
			} else {
				fillAll(f, seed, when)
			}
		}
	}
}

// TestListEncoderIsJSON: the list's hand-written encoder writes exactly
// what encoding/json does, for every field set, none set, and strings
// and times encoding/json treats specially.
func TestListEncoderIsJSON(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	full := func(seed string, when time.Time) Workspace {
		var j Workspace
		fillAll(reflect.ValueOf(&j.WorkspaceHead).Elem(), seed, when)
		j.Sessions = make([]Session, 2)
		for i := range j.Sessions {
			fillAll(reflect.ValueOf(&j.Sessions[i]).Elem(), seed, when)
		}
		return j
	}
	odd := "a<b>&c \"q\" \\ \n\r\t\b\f \x01 \x7f é 日本 \u2028\u2029 \xff\xfe end"
	tests := []struct {
		name string
		j    Workspace
	}{
		{"every field", full("x-", time.Date(2026, 12, 3, 15, 4, 5, 123456789, time.UTC))},
		{"odd strings, a zone, whole seconds", full(odd, time.Date(2026, 1, 2, 3, 4, 5, 0, tokyo))},
		{"nothing set", Workspace{}},
		{"no sessions", Workspace{WorkspaceHead: WorkspaceHead{ID: "w", Name: "n"}, Sessions: []Session{}}},
		{"one bare session", Workspace{Sessions: []Session{{SessionID: "s"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := appendWorkspace(nil, &tt.j)
			if !ok {
				t.Fatal("the hand-written encoder gave up")
			}
			if want := encodeCompact(tt.j); string(got) != string(want) {
				t.Errorf("by hand:\n%s\nencoding/json:\n%s", got, want)
			}
		})
	}
	far := Workspace{WorkspaceHead: WorkspaceHead{StatusSince: time.Date(12026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	if _, ok := appendWorkspace(nil, &far); ok {
		t.Error("a five-digit year was encoded by hand; encoding/json refuses it")
	}
	if got, want := encodeWorkspace(&far), encodeCompact(far); string(got) != string(want) {
		t.Errorf("fallback %s, want %s", got, want)
	}
}
