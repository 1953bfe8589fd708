package usage

import (
	"math"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// turn is a hand-made turn of in input tokens costing usd.
func turn(end string, in int64, usd float64) Turn {
	return Turn{Start: at(end), End: at(end), Agent: AgentClaude, Workspace: "/w", Session: "s", Model: "m",
		Usage: event.Usage{InputTokens: in}, CostUSD: usd, CostKnown: true}
}

// TestDayBuckets: a turn counts on the day (week, month) of its end, in
// the report's time zone; --since and --until are whole days, inclusive.
func TestDayBuckets(t *testing.T) {
	plus2 := time.FixedZone("UTC+2", 2*3600)
	turns := []Turn{
		turn("2026-11-29T12:00:00Z", 1, 1),    // Sunday
		turn("2026-11-30T00:30:00Z", 10, 2),   // Monday
		turn("2026-12-02T23:30:00Z", 100, 4),  // Wednesday late: Thursday at UTC+2
		turn("2026-12-03T08:00:00Z", 1000, 8), // Thursday
	}
	type row struct {
		key string
		in  int64
		usd float64
	}
	for _, tt := range []struct {
		name         string
		by           string
		loc          *time.Location
		since, until string
		want         []row
	}{
		{"day UTC", "day", time.UTC, "", "", []row{{"2026-11-29", 1, 1}, {"2026-11-30", 10, 2}, {"2026-12-02", 100, 4}, {"2026-12-03", 1000, 8}}},
		{"day UTC+2", "day", plus2, "", "", []row{{"2026-11-29", 1, 1}, {"2026-11-30", 10, 2}, {"2026-12-03", 1100, 12}}},
		{"week starts Monday", "week", time.UTC, "", "", []row{{"2026-11-23", 1, 1}, {"2026-11-30", 1110, 14}}},
		{"month", "month", time.UTC, "", "", []row{{"2026-11", 11, 3}, {"2026-12", 1100, 12}}},
		{"since and until inclusive", "day", time.UTC, "2026-11-30", "2026-12-02", []row{{"2026-11-30", 10, 2}, {"2026-12-02", 100, 4}}},
		{"until at UTC+2 takes the late turn's day", "day", plus2, "", "2026-12-02", []row{{"2026-11-29", 1, 1}, {"2026-11-30", 10, 2}}},
		{"model", "model", time.UTC, "", "", []row{{"m", 1111, 15}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := Query{By: tt.by, Loc: tt.loc}
			if tt.since != "" {
				q.Since, _ = ParseDate(tt.since, tt.loc)
			}
			if tt.until != "" {
				q.Until, _ = ParseDate(tt.until, tt.loc)
			}
			rep := summarize(t, &History{Turns: turns}, q)
			var got []row
			var in int64
			usd := 0.0
			for _, r := range rep.Rows {
				got = append(got, row{r.Key, r.Usage.InputTokens, r.CostUSD})
				in, usd = in+r.Usage.InputTokens, usd+r.CostUSD
			}
			if len(got) != len(tt.want) {
				t.Fatalf("rows %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i].key != tt.want[i].key || got[i].in != tt.want[i].in || math.Abs(got[i].usd-tt.want[i].usd) > 1e-9 {
					t.Errorf("rows %v, want %v", got, tt.want)
				}
			}
			if rep.Total.Usage.InputTokens != in || math.Abs(rep.Total.CostUSD-usd) > 1e-9 {
				t.Errorf("total %d $%f, rows sum to %d $%f", rep.Total.Usage.InputTokens, rep.Total.CostUSD, in, usd)
			}
		})
	}
}

// TestBlocks: a block runs 5 hours from the hour of its first turn; the
// next turn at or after its end opens the next one; agents are metered
// apart; the block open now says how long it has left.
func TestBlocks(t *testing.T) {
	unknown := turn("2026-12-02T23:10:00Z", 5, 0)
	unknown.CostKnown, unknown.Model = false, "claude-future-9"
	cx := turn("2026-12-02T10:00:00Z", 7, 0.5)
	cx.Agent = AgentCodex
	turns := []Turn{
		turn("2026-12-02T09:20:00Z", 100, 1),
		turn("2026-12-02T11:59:00Z", 200, 2),
		turn("2026-12-02T14:00:00Z", 300, 0.5), // exactly at 09:00 + 5h: a new block
		turn("2026-12-02T14:30:00Z", 400, 0.25),
		unknown, // after a gap: 23:00 to 04:00
		cx,
	}
	want := []struct {
		agent, start, end string
		turns             int
		in                int64
		usd               float64
		known             bool
	}{
		{AgentClaude, "2026-12-02T09:00:00Z", "2026-12-02T14:00:00Z", 2, 300, 3, true},
		{AgentCodex, "2026-12-02T10:00:00Z", "2026-12-02T15:00:00Z", 1, 7, 0.5, true},
		{AgentClaude, "2026-12-02T14:00:00Z", "2026-12-02T19:00:00Z", 2, 700, 0.75, true},
		{AgentClaude, "2026-12-02T23:00:00Z", "2026-12-03T04:00:00Z", 1, 5, 0, false},
	}
	got := Blocks(turns)
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Agent != w.agent || !g.Start.Equal(at(w.start)) || !g.End.Equal(at(w.end)) || g.Turns != w.turns ||
			g.Usage.InputTokens != w.in || math.Abs(g.CostUSD-w.usd) > 1e-9 || g.CostKnown != w.known {
			t.Errorf("block %d: %+v, want %+v", i, g, w)
		}
	}
	for _, tt := range []struct {
		now   string
		left  int64
		count int
	}{
		{"2026-12-03T01:30:00Z", 2*3600 + 30*60, 1},
		{"2026-12-02T12:00:00Z", 2 * 3600, 2}, // claude's first block and codex's, both open
		{"2026-12-03T04:00:00Z", 0, 0},        // the last one just ended
	} {
		rep := summarize(t, &History{Turns: turns}, Query{Now: at(tt.now), Loc: time.UTC})
		if len(rep.Blocks) != tt.count || (tt.count > 0 && (rep.Blocks[0].LeftSeconds != tt.left || !rep.Blocks[0].Active)) {
			t.Errorf("at %s: current blocks %+v, want %d with %d s left", tt.now, rep.Blocks, tt.count, tt.left)
		}
	}
	rep := summarize(t, &History{Turns: turns}, Query{By: "block", Loc: time.UTC, Since: at("2026-12-02T00:00:00Z")})
	if len(rep.Rows) != 4 || rep.Total.Turns != len(turns) || math.Abs(rep.Total.CostUSD-4.25) > 1e-9 || rep.Total.CostKnown {
		t.Errorf("block rows %+v total %+v: want 4 rows, %d turns, ≈$4.25", rep.Rows, rep.Total, len(turns))
	}
}

func TestBadQuery(t *testing.T) {
	if _, err := Summarize(&History{}, Query{By: "year"}); err == nil {
		t.Error("an unknown view was accepted")
	}
	for _, s := range []string{"2026-13-01", "yesterday", "2026/12/01"} {
		if _, err := ParseDate(s, time.UTC); err == nil {
			t.Errorf("date %q accepted", s)
		}
	}
	if d, err := ParseDate("20261203", time.UTC); err != nil || !d.Equal(at("2026-12-03T00:00:00Z")) {
		t.Errorf("20261203: %v %v", d, err)
	}
}

// TestDayPartsByWorkspace: each day's cost is split by the workspaces its
// turns ran in, turns of two workspaces and two days interleaved (the
// next day's first in the workspace the last day's ended in).
func TestDayPartsByWorkspace(t *testing.T) {
	in := func(ws string, tr Turn) Turn { tr.Workspace = ws; return tr }
	h := &History{Turns: []Turn{
		in("/a", turn("2026-12-01T08:00:00Z", 1, 1)),
		in("/b", turn("2026-12-01T09:00:00Z", 2, 2)),
		in("/a", turn("2026-12-01T10:00:00Z", 4, 4)),
		in("/a", turn("2026-12-02T08:00:00Z", 32, 32)),
		in("/b", turn("2026-12-02T09:00:00Z", 8, 8)),
		in("/b", turn("2026-12-02T10:00:00Z", 16, 16)),
	}}
	rep := summarize(t, h, Query{By: "day", Loc: time.UTC})
	want := map[string][]Part{
		"2026-12-01": {{Workspace: "/a", CostUSD: 5, TotalTokens: 5}, {Workspace: "/b", CostUSD: 2, TotalTokens: 2}},
		"2026-12-02": {{Workspace: "/a", CostUSD: 32, TotalTokens: 32}, {Workspace: "/b", CostUSD: 24, TotalTokens: 24}},
	}
	if len(rep.Rows) != len(want) {
		t.Fatalf("rows %+v, want days %v", rep.Rows, want)
	}
	for _, r := range rep.Rows {
		if !slices.Equal(r.Workspaces, want[r.Key]) {
			t.Errorf("%s: parts %+v, want %+v", r.Key, r.Workspaces, want[r.Key])
		}
	}
}

// summarize is Summarize(h, q), which must not fail.
func summarize(t *testing.T, h *History, q Query) *Report {
	t.Helper()
	rep, err := Summarize(h, q)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
