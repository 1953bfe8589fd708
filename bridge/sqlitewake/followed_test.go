package sqlitewake

import (
	"slices"
	"testing"
)

// TestFollowed: following wakes Run and marks the key pending once;
// following again restarts its cursor; a cursor moves only while its key
// is followed; Again marks every key pending after a failed read.
func TestFollowed(t *testing.T) {
	s := NewFollowed[int]()
	s.Follow("a", 1)
	s.Follow("b", 2)
	select {
	case <-s.Wake():
	default:
		t.Fatal("Follow did not wake Run")
	}
	pending := s.TakePending()
	slices.Sort(pending)
	if !slices.Equal(pending, []string{"a", "b"}) || len(s.TakePending()) != 0 {
		t.Fatalf("pending %v, then not cleared", pending)
	}
	s.Move("a", 7)
	s.Unfollow("b")
	s.Move("b", 9)
	if at, ok := s.Cursor("a"); at != 7 || !ok {
		t.Errorf("a at %d (%v), want 7", at, ok)
	}
	if _, ok := s.Cursor("b"); ok {
		t.Error("a cursor moved a key no longer followed back in")
	}
	s.Follow("a", 3)
	if at, _ := s.Cursor("a"); at != 3 {
		t.Errorf("following again left a at %d, want 3", at)
	}
	s.TakePending()
	s.Again()
	if got := s.TakePending(); !slices.Equal(got, []string{"a"}) || !slices.Equal(s.Keys(), []string{"a"}) {
		t.Errorf("after Again pending %v, keys %v", got, s.Keys())
	}
}
