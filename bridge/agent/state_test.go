package agent

import (
	"strings"
	"testing"
)

func TestLoadAndSaveState(t *testing.T) {
	type state struct {
		N int    `json:"n"`
		S string `json:"s,omitempty"`
	}
	for _, tt := range []struct {
		saved   string
		want    state
		wantErr string
	}{
		{"", state{N: 7}, ""},
		{"null", state{N: 7}, ""},
		{`{"n":3,"s":"x"}`, state{N: 3, S: "x"}, ""},
		{`{"n":"three"}`, state{N: 7}, "resume test parser: "},
	} {
		got := state{N: 7}
		err := LoadState("test", []byte(tt.saved), &got)
		if (err == nil) != (tt.wantErr == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.wantErr)) {
			t.Errorf("%q: error %v, want %q", tt.saved, err, tt.wantErr)
		}
		if tt.wantErr == "" && got != tt.want {
			t.Errorf("%q: %+v, want %+v", tt.saved, got, tt.want)
		}
	}
	raw, err := SaveState("test", &state{N: 2, S: "y"})
	if err != nil || string(raw) != `{"n":2,"s":"y"}` {
		t.Errorf("SaveState: %s, %v", raw, err)
	}
	if _, err := SaveState("test", make(chan int)); err == nil || !strings.HasPrefix(err.Error(), "save test parser: ") {
		t.Errorf("SaveState of a channel: %v", err)
	}
}
