package usage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestNewestLimitWins: of two rollouts recording limits, the report shows
// the one recorded last, whichever file is read first.
func TestNewestLimitWins(t *testing.T) {
	_, codexHome := corpusHome(t)
	files, _ := filepath.Glob(filepath.Join(codexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(files) != 2 {
		t.Fatalf("corpus rollouts: %v", files)
	}
	for i, f := range files {
		line := `{"timestamp":"2026-12-0` + string(rune('3'+i)) + `T09:00:00Z","type":"event_msg","payload":{"type":"token_count",` +
			`"rate_limits":{"primary":{"used_percent":` + string(rune('1'+i)) + `0,"window_minutes":300}}}}` + "\n"
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString(line)
		fh.Close()
	}
	h, err := Source{Formats: agentsAt("", codexHome)}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Limits) != 1 || h.Limits[0].UsedPercent != 20 || !h.Limits[0].Seen.Equal(at("2026-12-04T09:00:00Z")) {
		t.Errorf("limits %+v, want the 2026-12-04 one at 20%%", h.Limits)
	}
	if len(h.Turns) != 4 {
		t.Errorf("%d codex turns, want 4 (2 per rollout)", len(h.Turns))
	}
}
