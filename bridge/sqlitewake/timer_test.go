package sqlitewake

import (
	"testing"
	"time"
)

// TestRetryTimerFires: the retry timer (a timerfd on Linux) fires after
// each Reset, again after a Reset once it fired, and Close lets it go.
func TestRetryTimerFires(t *testing.T) {
	for _, c := range []struct {
		name string
		new  func() retryTimer
	}{{"this system's", newRetryTimer}, {"the runtime's", func() retryTimer { return newGoTimer() }}} {
		t.Run(c.name, func(t *testing.T) {
			rt := c.new()
			defer rt.Close()
			for i := range 3 {
				rt.Reset(200 * time.Microsecond)
				select {
				case <-rt.C():
				case <-time.After(10 * time.Second):
					t.Fatalf("reset %d: the timer never fired", i)
				}
			}
		})
	}
}
