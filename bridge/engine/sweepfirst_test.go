package engine

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSweepFirstLook: the sweep's first look at a path counts as a change
// unless the workspace began reading it after it last changed (a cold
// start's thousand workspaces are not all read a second time a second
// later); later looks compare with the one before.
func TestSweepFirstLook(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jsonl")
	fresh := filepath.Join(dir, "fresh.jsonl")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-time.Minute)
	os.Chtimes(old, long, long)
	now := time.Now()
	for _, tt := range []struct {
		name   string
		path   string
		readAt time.Time
		want   bool
	}{
		{"read after its last change", old, now, false},
		{"never read", old, time.Time{}, true},
		{"changed while being read", fresh, now, true},
		{"missing", filepath.Join(dir, "none.jsonl"), now, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &sweeper{stamps: map[string]stamp{}}
			if got := s.changed(tt.path, tt.readAt); got != tt.want {
				t.Errorf("first look = %v, want %v", got, tt.want)
			}
			if s.changed(tt.path, tt.readAt) {
				t.Error("second look at an unchanged path counts as a change")
			}
		})
	}
	s := &sweeper{stamps: map[string]stamp{}}
	s.changed(old, now)
	if err := os.WriteFile(old, []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.changed(old, now) {
		t.Error("a write after the first look is not a change")
	}
}
