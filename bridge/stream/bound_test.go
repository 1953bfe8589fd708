package stream

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
)

// TestPublishBoundsEveryString: a transcript line with a 3 MB tool name,
// tool id, model, session id and status reason becomes a small event, on
// the wire, in history and in the journal alike.
func TestPublishBoundsEveryString(t *testing.T) {
	dir := t.TempDir()
	h := NewHub(dir, 0)
	defer h.Close()
	tp, err := h.Topic("w1")
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 3<<20)
	items, err := tp.Publish([]event.Event{
		{Type: event.ToolUse, Name: huge, ToolUseID: huge, Input: huge, SessionID: huge},
		{Type: event.TurnComplete, Model: huge, SessionID: huge},
		{Type: event.Status, State: event.StateNeedsInput, Reason: huge},
		{Type: event.Session, Path: huge, Workspace: huge},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if len(it.Data) > 4<<10 {
			t.Errorf("%s event is %d bytes", it.Type, len(it.Data))
		}
	}
	var journal int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, _ error) error {
		if info, err := d.Info(); err == nil && !d.IsDir() {
			journal += info.Size()
		}
		return nil
	})
	if journal == 0 || journal > 16<<10 {
		t.Errorf("journal holds %d bytes", journal)
	}
}
