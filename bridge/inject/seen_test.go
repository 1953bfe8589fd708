package inject

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSeenRecordsAndSurvives(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hooks-seen.json")
	s := OpenSeen(path)
	s.Record("ws1", HookStop) // first record saves at once
	s.Record("ws2", HookPostToolUse)
	m, err := ReadSeen(path)
	if err != nil || m["ws1"].Event != HookStop {
		t.Fatalf("saved: %v %v", m, err)
	}
	if _, ok := m["ws2"]; ok {
		t.Error("saved again within the throttle")
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	again := OpenSeen(path)
	if h, ok := again.Last("ws2"); !ok || h.Event != HookPostToolUse || h.At.IsZero() {
		t.Errorf("after reload: %+v %v", h, ok)
	}
	os.WriteFile(path, []byte("{broken"), 0o600)
	if _, err := ReadSeen(path); err == nil {
		t.Error("damaged record read without error")
	}
	if _, ok := OpenSeen(path).Last("ws1"); ok {
		t.Error("damaged record not started afresh")
	}
}
