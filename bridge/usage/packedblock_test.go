package usage

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"
)

// TestOpenBlocksOfACompactHistory: a compact history, which sums only the
// blocks open at now, shows the blocks a history of turns shows at every
// moment around their edges: before a block's first turn but in its hour,
// just after it opens, hours after its first turn, at its end; for
// Claude and Codex apart, and with a turn of no start.
func TestOpenBlocksOfACompactHistory(t *testing.T) {
	span := func(start, end string, in int64, usd float64) Turn {
		tr := turn(end, in, usd)
		tr.Start = at(start)
		return tr
	}
	cx := span("2026-12-02T06:30:00Z", "2026-12-02T06:40:00Z", 7, 0.5)
	cx.Agent = AgentCodex
	noStart := turn("2026-12-02T12:00:00Z", 9, 0.125)
	noStart.Start = time.Time{}
	turns := []Turn{
		span("2026-12-02T09:20:00Z", "2026-12-02T09:50:00Z", 100, 1),
		span("2026-12-02T11:59:00Z", "2026-12-02T12:10:00Z", 200, 2),
		span("2026-12-02T14:00:00Z", "2026-12-02T14:05:00Z", 300, 0.5), // 09:00 + 5h: the next block
		span("2026-12-02T14:30:00Z", "2026-12-02T16:00:00Z", 400, 0.25),
		cx, // 06:00 to 11:00
		noStart,
	}
	slices.SortStableFunc(turns, func(a, b Turn) int { return a.End.Compare(b.End) })
	plain := &History{Turns: turns}
	p, err := pack([]cached{{turns: turns}}, []int{0}, len(turns), 1)
	if err != nil {
		t.Fatal(err)
	}
	compact := &History{packed: p}
	for _, tt := range []struct {
		now  string
		open int // blocks open then: Claude's 09:00 to 14:00 and 14:00 to 19:00, Codex's 06:00 to 11:00
	}{
		{"2026-12-02T01:00:00Z", 0},
		{"2026-12-02T06:10:00Z", 1}, // in Codex's hour, before its first turn
		{"2026-12-02T09:00:00Z", 2}, // Claude's opens (its first turn at 09:20)
		{"2026-12-02T10:59:59Z", 2}, // Codex's 4 h 59 min after it began
		{"2026-12-02T11:00:00Z", 1}, // Codex's ended
		{"2026-12-02T13:59:59Z", 1},
		{"2026-12-02T14:00:00Z", 1}, // Claude's second
		{"2026-12-02T18:59:59Z", 1},
		{"2026-12-02T19:00:00Z", 0},
	} {
		for _, by := range []string{"day", "session", "block"} {
			q := Query{By: by, Loc: time.UTC, Now: at(tt.now)}
			want := summarize(t, plain, q)
			got := summarize(t, compact, q)
			jw, _ := json.Marshal(want)
			jg, _ := json.Marshal(got)
			if !bytes.Equal(jw, jg) {
				t.Errorf("at %s by %s:\nturns   %s\ncompact %s", tt.now, by, jw, jg)
			}
			if len(got.Blocks) != tt.open {
				t.Errorf("at %s by %s: %d blocks open, want %d", tt.now, by, len(got.Blocks), tt.open)
			}
		}
	}
}
