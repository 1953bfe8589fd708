package opencode_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
	"conductorbridge/testkit/fakemodel"
	"conductorbridge/testkit/opencodetest"
)

// script is the session every end-to-end test plays: a step that thinks,
// says something and runs a shell command, then a step that answers,
// reporting cached and reasoning tokens.
func script() []fakemodel.Turn {
	return []fakemodel.Turn{
		{Blocks: []fakemodel.Block{fakemodel.Thinking("I should list the folder."), fakemodel.Text("Let me look."),
			fakemodel.ToolUse("bash", map[string]any{"command": "echo hi; ls", "description": "List files"})},
			Usage: fakemodel.Usage{InputTokens: 1200, OutputTokens: 40, ReasoningTokens: 12}},
		{Blocks: []fakemodel.Block{fakemodel.Text("The folder holds README.md.")},
			Usage: fakemodel.Usage{InputTokens: 400, CacheReadInputTokens: 1100, OutputTokens: 25}}, // 1500 in, 1100 of it cached
	}
}

const prompt = "What is in this folder?"

// readAll parses every row of session from the start.
func readAll(t *testing.T, st *opencode.Store, session string) ([]event.Event, *opencode.Parser, []opencode.Row) {
	t.Helper()
	p, _ := opencode.NewParser(nil)
	var evs []event.Event
	var all []opencode.Row
	for {
		rows, err := st.Rows(context.Background(), session, p.Next()-1, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			all = append(all, r)
			if evs, err = p.Line(r.Line(), evs); err != nil {
				t.Fatalf("row %d: %v", r.Seq, err)
			}
		}
		if len(rows) < 512 {
			return evs, p, all
		}
	}
}

// TestRealSessionStreams runs the real OpenCode against the fake model and
// reads what it wrote: every expected value comes from what the model
// served and what OpenCode itself stored (the session row's tokens and
// cost), never from the parser.
func TestRealSessionStreams(t *testing.T) {
	bin := opencodetest.Find(t)
	srv := opencodetest.Server(t, script()...)
	home := opencodetest.NewHome(t, srv.URL())
	// One run takes 15-20 s of CPU; with two suites side by side on two
	// cores (load 17-20) 70-110 s of wall time, and at a suite's start,
	// where both suites build and start every package, it was killed at
	// 3 minutes in both copies. The budget is for a hung run, not a slow one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run, err := home.Run(ctx, bin, prompt)
	t.Logf("the opencode run took %s, %s of CPU", run.Wall, run.CPU)
	if err != nil {
		t.Fatal(err)
	}
	st := opencode.NewStore(home.DB())
	defer st.Close()
	evs, p, rows := readAll(t, st, run.Session)

	main := srv.MainRequests()
	if len(main) != 2 {
		t.Fatalf("%d model calls, want 2", len(main))
	}
	// What the model served and was sent, and OpenCode's own totals
	// from its session row: the oracle.
	w := want{Thinking: []string{"I should list the folder."}, Assistant: []string{"Let me look.", "The folder holds README.md."},
		Model: opencodetest.Model}
	users := main[0].UserTexts()
	w.Users = []string{users[len(users)-1]}
	for _, out := range main[1].ToolOutputs() {
		w.Tools = append(w.Tools, toolWant{Name: "Bash", Input: "echo hi; ls", Output: out})
	}
	var in, out, reasoning, cacheRead int64
	var cost float64
	row := sqlRow(t, home.DB(), "SELECT cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read FROM session WHERE id = ?", run.Session)
	if err := row(&cost, &in, &out, &reasoning, &cacheRead); err != nil {
		t.Fatal(err)
	}
	w.Turns = []turnWant{{Cost: cost, Usage: event.Usage{InputTokens: in, OutputTokens: out + reasoning, ReasoningOutputTokens: reasoning, CacheReadTokens: cacheRead}}}
	// The served usage is in OpenAI's convention (input with the cache).
	if in+cacheRead != 1200+1500 || cacheRead != 1100 || out+reasoning != 40+25 {
		t.Errorf("OpenCode stored in=%d cache=%d out=%d reasoning=%d for the served usage", in, cacheRead, out, reasoning)
	}
	pr := opencodetest.Prices
	if byHand := (float64(in)*pr.Input + float64(out+reasoning)*pr.Output + float64(cacheRead)*pr.CacheRead) / 1e6; math.Abs(byHand-cost) > 1e-9 {
		t.Errorf("OpenCode's cost %v, the configured prices make %v", cost, byHand)
	}
	w.check(t, evs)
	// The tool's id is the model's call id, and its output what the
	// model got back for that id.
	for _, e := range evs {
		if e.Type == event.ToolResult {
			if got := main[1].ToolOutputs()[e.ToolUseID]; got != e.Output {
				t.Errorf("tool result %q for %s, the model got %q", e.Output, e.ToolUseID, got)
			}
		}
	}
	if p.InTurn() || p.Version() != opencodetest.Version || p.SessionID() != run.Session || p.Dir() != home.Work {
		t.Errorf("parser after the run: in turn %v, version %q, session %q, dir %q", p.InTurn(), p.Version(), p.SessionID(), p.Dir())
	}
	if last, err := st.LastSeq(ctx, run.Session); err != nil || last != rows[len(rows)-1].Seq || p.Next() != last+1 {
		t.Errorf("last seq %d (%v), rows end at %d, parser next %d", last, err, rows[len(rows)-1].Seq, p.Next())
	}
	// usage counts the turn as OpenCode's session row does.
	h, err := usage.Source{Formats: []driver.Format{opencode.NewDriver(home.DB())}}.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Turns) != 1 || h.Turns[0].Usage != w.Turns[0].Usage || math.Abs(h.Turns[0].CostUSD-cost) > 1e-12 ||
		h.Turns[0].Model != opencodetest.Model || h.Turns[0].Session != run.Session || h.Turns[0].Workspace != home.Work {
		t.Errorf("usage read %+v, want one turn of %+v, $%v, in %s", h.Turns, w.Turns[0].Usage, cost, home.Work)
	}
	record(t, "run", rows, w)
}

// record writes the rows as the corpus testdata/<name>.jsonl when
// OPENCODE_RECORD=1: what the real binary wrote, for the corpus tests.
func record(t *testing.T, name string, rows []opencode.Row, w want) {
	if os.Getenv("OPENCODE_RECORD") != "1" {
		return
	}
	var b []byte
	for _, r := range rows {
		b = append(append(b, r.Line()...), '\n')
	}
	if err := os.WriteFile(filepath.Join("testdata", name+".jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", name+".want.json"), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %d rows in testdata/%s.jsonl", len(rows), name)
}
