package main

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// readStamped hands on only the events of the type asked for that carry
// a bench stamp, each with its stamp, and stops reading once it has had
// enough.
func TestReadStamped(t *testing.T) {
	body := strings.Join([]string{
		"event: user\ndata: {\"text\":\"bench@1000\"}\n",
		"event: browse\ndata: {\"args\":\"bench@2000\"}\n",
		"event: user\ndata: {\"text\":\"no stamp\"}\n",
		": heartbeat\n",
		"event: user\ndata: {\"text\":\"bench@3000\"}\n",
		"event: user\ndata: {\"text\":\"bench@4000\"}\n",
		"",
	}, "\n")
	for _, tt := range []struct {
		typ    string
		enough int
		want   []int64
	}{
		{"user", 0, []int64{1000, 3000, 4000}},
		{"user", 2, []int64{1000, 3000}},
		{"browse", 0, []int64{2000}},
		{"assistant", 0, nil},
	} {
		var got []int64
		readStamped(strings.NewReader(body), tt.typ, func(sent, now time.Time) bool {
			if now.IsZero() {
				t.Errorf("%s: no arrival time", tt.typ)
			}
			got = append(got, sent.UnixNano())
			return len(got) == tt.enough
		})
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s, enough at %d: stamps %v, want %v", tt.typ, tt.enough, got, tt.want)
		}
	}
}
