package usage

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/transcript"
)

// corpusHome lays the real transcripts of bridge/transcript and
// bridge/codex out as Claude Code and Codex keep them, and returns the
// Claude projects folder and the Codex home.
func corpusHome(t *testing.T) (projects, codexHome string) {
	t.Helper()
	root := t.TempDir()
	projects, codexHome = filepath.Join(root, "projects"), filepath.Join(root, "codex")
	src := "../transcript/testdata/corpus"
	for _, v := range []string{"1.0.128", "2.0.77", "2.1.328"} {
		copyTree(t, filepath.Join(src, v), filepath.Join(projects, "-tmp-demo-"+strings.ReplaceAll(v, ".", "-")))
	}
	day := filepath.Join(codexHome, "sessions", "2026", "12", "02")
	for _, v := range []string{"0.169.0", "0.47.0"} {
		copyTree(t, filepath.Join("../codex/testdata/corpus", v), day)
	}
	return projects, codexHome
}

// copyTree copies the .jsonl files under src to dst, keeping their layout.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// streamed is what the streams say of the same files, worked out the plain
// way, one file at a time: the turn_complete events of each session file
// and rollout read start to end by its parser, plus what each subagent
// file's parser hands its session (CountInto).
func streamed(t *testing.T, projects, codexHome string, prices *price.Table) (sum event.Usage, cost float64, turns int) {
	t.Helper()
	lines := func(path string) [][]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	}
	add := func(evs []event.Event) {
		for _, e := range evs {
			if e.Type == event.TurnComplete {
				sum, cost, turns = sum.Add(e.Usage), cost+e.CostUSD, turns+1
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(projects, "*", "*.jsonl"))
	subs, _ := filepath.Glob(filepath.Join(projects, "*", "*", "subagents", "*.jsonl"))
	for _, path := range append(files, subs...) {
		main := &transcript.Parser{}
		main.SetPrices(prices)
		p := main
		if strings.HasPrefix(filepath.Base(path), "agent-") {
			p = &transcript.Parser{}
			p.SetPrices(prices)
			p.CountInto(main)
		}
		var evs []event.Event
		for _, l := range lines(path) {
			evs, _ = p.Line(l, evs)
		}
		if p == main {
			evs = main.Quiet(main.Flush(evs))
			add(evs)
			continue
		}
		if c := main.State.Carry; c != nil { // a subagent file: what its session's turn gets
			sum, cost = sum.Add(c.Usage), cost+c.Cost
		}
	}
	rollouts, _ := filepath.Glob(filepath.Join(codex.SessionsDir(codexHome), "*", "*", "*", "rollout-*.jsonl"))
	for _, path := range rollouts {
		p := &codex.Parser{Price: prices.ModelCost}
		var evs []event.Event
		for _, l := range lines(path) {
			evs, _ = p.Line(l, evs)
		}
		add(p.Quiet(p.Flush(evs)))
	}
	if turns == 0 {
		t.Fatal("the corpus streamed no turn_complete")
	}
	return sum, cost, turns
}

// TestUsageEqualsStreamedTurns: usage over the real corpus (three Claude
// Code releases with their three subagent layouts, two Codex releases)
// sums exactly what the streamed turn_complete events say, in every
// view: nothing dropped, nothing counted twice.
func TestUsageEqualsStreamedTurns(t *testing.T) {
	projects, codexHome := corpusHome(t)
	prices := price.Default()
	wantUsage, wantCost, wantTurns := streamed(t, projects, codexHome, prices)

	h, err := Source{Formats: agentsAt(projects, codexHome), Prices: prices, Workers: 3}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Errors) > 0 {
		t.Fatalf("read errors: %v", h.Errors)
	}
	if h.Files != 10 { // 3 Claude sessions, 5 subagent files, 2 rollouts
		t.Errorf("read %d files, want 10", h.Files)
	}
	for _, by := range Views {
		t.Run(by, func(t *testing.T) {
			rep := summarize(t, h, Query{By: by, Loc: time.UTC})
			var rows Row
			for _, r := range rep.Rows {
				rows.merge(r)
			}
			for name, got := range map[string]Row{"total": rep.Total, "sum of rows": rows} {
				if got.Usage != wantUsage || got.Turns != wantTurns || math.Abs(got.CostUSD-wantCost) > 1e-9 {
					t.Errorf("%s: %d turns %+v $%.6f; the streams say %d turns %+v $%.6f",
						name, got.Turns, got.Usage, got.CostUSD, wantTurns, wantUsage, wantCost)
				}
			}
		})
	}
}

// TestUsageCountsSubagentFiles: the subagents' own files (2.0 beside the
// session, 2.1 in <session>/subagents) count into their session, and
// 1.0's inline sidechain lines too; hand-checked against the corpus's
// reviewed event lists (bridge/transcript/testdata/corpus/*.events).
func TestUsageCountsSubagentFiles(t *testing.T) {
	projects, _ := corpusHome(t)
	h, err := Source{Formats: agentsAt(projects, "")}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rep := summarize(t, h, Query{By: "session", Loc: time.UTC})
	// The session files alone (their .events lists) say: 1.0.128 in
	// 2100+200, 2.0.77 in 1900+200, 2.1.328 in 1900+200. 1.0.128's
	// subagent is inline and already in them (subagent_in=200); 2.0.77's
	// real subagent and three Warmup agents, and 2.1.328's subagent, are
	// in files of their own: each of their responses used in 100.
	for _, tt := range []struct {
		session string
		in, sub int64
	}{
		{"claude:de4fded4-d372-46ad-b1c5-0d88aca1c2ef", 2300, 200},
		{"claude:8ea2c1d2-6c13-41e7-8a87-123726d6bb7c", 2100 + subIn(t, projects, "-tmp-demo-2-0-77", "agent-*.jsonl"), subIn(t, projects, "-tmp-demo-2-0-77", "agent-*.jsonl")},
		{"claude:cdde5e9d-5ddb-4c57-9334-6b05a2e72297", 2100 + subIn(t, projects, "-tmp-demo-2-1-328", "*/subagents/*.jsonl"), subIn(t, projects, "-tmp-demo-2-1-328", "*/subagents/*.jsonl")},
	} {
		var got *Row
		for i := range rep.Rows {
			if rep.Rows[i].Key == tt.session {
				got = &rep.Rows[i]
			}
		}
		if got == nil {
			t.Errorf("no row for %s in %+v", tt.session, rep.Rows)
			continue
		}
		if got.Usage.InputTokens != tt.in || got.SubagentUsage.InputTokens != tt.sub || tt.sub == 0 {
			t.Errorf("%s: in %d (subagents %d), want %d (%d)", tt.session, got.Usage.InputTokens, got.SubagentUsage.InputTokens, tt.in, tt.sub)
		}
		if !strings.HasPrefix(got.Workspace, "/tmp/cbhome-") {
			t.Errorf("%s: workspace %q, want the session's cwd", tt.session, got.Workspace)
		}
	}
}

// subIn counts the input tokens of the distinct responses in a project's
// subagent files the simple way: one per message id.
func subIn(t *testing.T, projects, project, glob string) int64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(projects, project, glob))
	seen := map[string]int64{}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range bytes.Split(b, []byte("\n")) {
			if r, ok := transcript.ParseResponse(l); ok {
				seen[r.Key] = r.Req.Usage.InputTokens
			}
		}
	}
	var n int64
	for _, v := range seen {
		n += v
	}
	return n
}

// TestSubagentLandsInItsTurn: a subagent file is read in time order with
// its session's, so what the subagent spent counts in the turn that ran
// it (2.1.328: the first turn's Agent call), not in a later one.
func TestSubagentLandsInItsTurn(t *testing.T) {
	projects, _ := corpusHome(t)
	h, err := Source{Formats: agentsAt(projects, "")}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []Turn
	for _, tr := range h.Turns {
		if tr.Session == "cdde5e9d-5ddb-4c57-9334-6b05a2e72297" {
			got = append(got, tr)
		}
	}
	// Its .events list says in=1900 then in=200 for the session file
	// alone; the subagent's two responses used in 100 each.
	if len(got) != 2 || got[0].Usage.InputTokens != 2100 || got[0].SubUsage.InputTokens != 200 ||
		got[1].Usage.InputTokens != 200 || got[1].SubUsage.InputTokens != 0 {
		t.Errorf("turns %+v: want in 2100 (200 of it the subagent's), then 200", got)
	}
}
