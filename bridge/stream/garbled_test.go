package stream

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// journalOf publishes n events into topic w, one a line, and returns the
// journal's path.
func journalOf(t *testing.T, dir string, n int) string {
	t.Helper()
	tp, err := NewHub(dir, 100).Topic("w")
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := tp.Publish(texts(1, "line"), []byte(`{"off":`+itoa(i)+`}`)); err != nil {
			t.Fatal(err)
		}
	}
	tp.journal.Close()
	return filepath.Join(dir, journalName("w"))
}

// garble makes the journal's line k (from 1) not JSON, keeping its length
// and its newline.
func garble(t *testing.T, path string, k int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[k-1][0] = '#'
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Issue 24, finding 9: one garbled line in the middle of a journal made
// Load stop there and hand out ids from 18 again after 35 had been
// issued, and the viewer hid the next 17 events as already drawn. Ids
// continue past anything ever issued — after a second restart too — the
// damage is reported, and the bytes after it are kept aside.
func TestGarbledLineNeverRewindsIDs(t *testing.T) {
	for _, tt := range []struct {
		name string
		line int // which of the 35 lines is garbled
	}{{"in the middle", 18}, {"the last whole line", 35}, {"the first", 1}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := journalOf(t, dir, 35)
			garble(t, path, tt.line)
			var logged []string
			for restart := range 2 {
				h := NewHub(dir, 100)
				h.Log = func(msg string) { logged = append(logged, msg) }
				tp, err := h.Topic("w")
				if err != nil {
					t.Fatal(err)
				}
				if tp.LastID() < 35 {
					t.Errorf("restart %d: last id %d after 35 were issued", restart+1, tp.LastID())
				}
				tp.journal.Close()
			}
			if len(logged) != 1 || !strings.Contains(logged[0], "garbled") {
				t.Errorf("logged %q; want the damage reported once", logged)
			}
			if b, err := os.ReadFile(path + ".damaged"); err != nil || !bytes.HasPrefix(b, []byte("#")) {
				t.Errorf("the damaged tail was not kept aside: %v %q", err, b)
			}
			tp, _ := NewHub(dir, 100).Topic("w")
			items, err := tp.Publish(texts(1, "after"), nil)
			if err != nil || items[0].ID <= 35 {
				t.Errorf("next id %d, %v; want above 35", items[0].ID, err)
			}
			wholeLines(t, path)
		})
	}
}
