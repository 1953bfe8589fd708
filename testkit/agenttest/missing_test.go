package agenttest

import (
	"fmt"
	"testing"
)

// outcome records how Missing ended a test, without ending this one: as
// a real test would have ended there, only the first call counts.
type outcome struct {
	testing.TB
	said string
}

func (o *outcome) Helper() {}
func (o *outcome) Skipf(format string, args ...any) {
	o.end("skipped: " + fmt.Sprintf(format, args...))
}
func (o *outcome) Fatalf(format string, args ...any) {
	o.end("failed: " + fmt.Sprintf(format, args...))
}
func (o *outcome) end(said string) {
	if o.said == "" {
		o.said = said
	}
}

// A missing tool skips a test here, and fails it under CI=true, where
// the image must have it.
func TestMissingSkipsButFailsUnderCI(t *testing.T) {
	for _, tt := range []struct{ ci, want string }{
		{"", "skipped: no tmux: gone"},
		{"false", "skipped: no tmux: gone"},
		{"true", "failed: no tmux: gone"},
	} {
		t.Setenv("CI", tt.ci)
		o := &outcome{TB: t}
		Missing(o, "no tmux: %s", "gone")
		if o.said != tt.want {
			t.Errorf("CI=%q: %q, want %q", tt.ci, o.said, tt.want)
		}
	}
}
