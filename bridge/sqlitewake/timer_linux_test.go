package sqlitewake

import "testing"

// TestRetryTimerIsATimerfd: on Linux the retry timer is a timerfd, not
// the runtime's timer, which waits at least a millisecond there.
func TestRetryTimerIsATimerfd(t *testing.T) {
	rt := newRetryTimer()
	defer rt.Close()
	if _, ok := rt.(*fdTimer); !ok {
		t.Fatalf("retry timer %T, want a timerfd", rt)
	}
}
