package browse

import (
	"strings"
	"testing"
	"time"
)

// An entry's time is its own (the browse server stamps it on this
// machine's clock), unless it claims to come from after its arrival or
// from before the server's run: a server's word is not trusted further.
func TestEntryTime(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	began := now.Add(-time.Hour)
	ms := func(t time.Time) float64 { return float64(t.UnixMilli()) }
	tests := []struct {
		name string
		ts   float64
		want time.Time
	}{
		{"its own", ms(now.Add(-40 * time.Millisecond)), now.Add(-40 * time.Millisecond)},
		{"from the run's start", ms(began), began},
		{"after its arrival", ms(now.Add(time.Second)), now},
		{"before the run", ms(began.Add(-2 * time.Minute)), now},
		{"none", 0, now},
		{"absurd", 1e300, now},
	}
	for _, tt := range tests {
		en := entry{Timestamp: tt.ts}
		if got := en.when(now, began); !got.Equal(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// Long arguments are joined only as far as an event keeps them.
func TestJoinArgsStopsPastTheCut(t *testing.T) {
	args := make([]string, 10000)
	for i := range args {
		args[i] = "argument"
	}
	if s := joinArgs(args); len(s) > 2100 || !strings.HasPrefix(s, "argument argument") {
		t.Errorf("joined %d bytes", len(s))
	}
	if s := joinArgs([]string{"#email", "a b"}); s != "#email a b" {
		t.Errorf("joined %q", s)
	}
}
