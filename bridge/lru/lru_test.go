package lru

import (
	"slices"
	"testing"
	"time"
)

// TestUseIdleForget: past the bound the least recently used key is put
// out (a use moves a key to the front); Idle takes out those last used
// before a time, oldest first; Forget takes one out.
func TestUseIdleForget(t *testing.T) {
	l := New[string](2)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		key    string
		at     int // minutes after t0
		victim string
	}{
		{"a", 0, ""},
		{"b", 1, ""},
		{"a", 2, ""},  // a again: b is now the least recent
		{"c", 3, "b"}, // past the bound: b goes
		{"d", 4, "a"},
	}
	for _, s := range steps {
		v, ok := l.Use(s.key, t0.Add(time.Duration(s.at)*time.Minute))
		if ok != (s.victim != "") || v != s.victim {
			t.Fatalf("use %s at %d: victim %q (%v), want %q", s.key, s.at, v, ok, s.victim)
		}
	}
	if n := l.Len(); n != 2 {
		t.Fatalf("holds %d, want 2", n)
	}
	if idle := l.Idle(t0.Add(4 * time.Minute)); !slices.Equal(idle, []string{"c"}) {
		t.Errorf("idle before minute 4: %q, want [c]", idle)
	}
	l.Forget("d")
	l.Forget("d") // forgotten twice: nothing more to take out
	if n := l.Len(); n != 0 {
		t.Errorf("after Forget holds %d, want 0", n)
	}
}
