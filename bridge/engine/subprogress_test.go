package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
)

// corpus21 is the real 2.1.328 session of the transcript corpus: its
// main transcript and its one subagent's file.
const (
	corpus21    = "../transcript/testdata/corpus/2.1.328"
	corpus21SID = "cdde5e9d-5ddb-4c57-9334-6b05a2e72297"
	corpus21Sub = "agent-aaa4a3eec90c91381.jsonl"
	corpus21Cwd = "/tmp/cbhome-2.1.328/work/demo"

	corpus20    = "../transcript/testdata/corpus/2.0.77"
	corpus20SID = "8ea2c1d2-6c13-41e7-8a87-123726d6bb7c"
	corpus20Cwd = "/tmp/cbhome-2.0.77/work/demo"
)

// readLines returns a corpus file's lines with its recorded workspace
// path (/tmp/cbhome-<version>/work/demo) replaced by dir.
func readLines(t *testing.T, path, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{corpus21Cwd, corpus20Cwd} {
		b = bytes.ReplaceAll(b, []byte(cwd), []byte(dir))
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// progressOf wraps a subagent's assistant line the way 2.1 releases
// before 2.1.328 relayed it into the main transcript while the subagent
// ran: a progress record whose data.message is the whole line.
func progressOf(t *testing.T, line string, withRequestID bool) (string, bool) {
	var rec map[string]any
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["type"] != "assistant" {
		return "", false
	}
	if !withRequestID {
		delete(rec, "requestId")
	}
	p := map[string]any{"type": "progress", "parentToolUseID": "toolu_fake0007_1", "sessionId": rec["sessionId"],
		"timestamp": rec["timestamp"], "cwd": rec["cwd"],
		"data": map[string]any{"type": "agent_progress", "agentId": rec["agentId"], "message": rec}}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// TestSubagentSeenTwiceCountsOnce: a subagent's responses reach the engine
// both as progress records in the main transcript and in the subagent's
// own file, in either order, with or without the requestId in the
// relayed copy. The turn counts them once. Built from the real 2.1.328
// corpus session; the progress records wrap its subagent's real lines.
func TestSubagentSeenTwiceCountsOnce(t *testing.T) {
	for _, c := range []struct {
		name                 string
		fileFirst, requestID bool
	}{
		{"progress first", false, true},
		{"file first", true, true},
		{"progress first, no requestId", false, false},
		{"file first, no requestId", true, false},
	} {
		fileFirst := c.fileFirst
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			dir, proj := h.workspace("twice")
			main := readLines(t, filepath.Join(corpus21, corpus21SID+".jsonl"), dir)
			sub := readLines(t, filepath.Join(corpus21, corpus21SID, "subagents", corpus21Sub), dir)
			var progress []string
			for _, l := range sub {
				if p, ok := progressOf(t, l, c.requestID); ok {
					progress = append(progress, p)
				}
			}
			if len(progress) != 2 {
				t.Fatalf("the corpus subagent has %d responses, want 2", len(progress))
			}
			// Line 50 is the Agent call's tool_result: the subagent ran
			// before it.
			if !strings.Contains(main[50], `"tool_use_id":"toolu_fake0007_1"`) {
				t.Fatalf("line 50 is not the Agent result: %.200s", main[50])
			}
			mainPath := filepath.Join(proj, corpus21SID+".jsonl")
			subPath := filepath.Join(proj, corpus21SID, "subagents", corpus21Sub)
			os.MkdirAll(filepath.Dir(subPath), 0o755)
			h.write(mainPath, main[:50]...)
			r := h.startWith(func(c *Config) { c.TailBytes, c.ColdTailBytes = 1<<20, 1<<20 })
			id := r.waitWorkspace(t, dir)
			r.collect(t, id, 0, has(event.ToolUse, "")) // the main transcript is being read
			if fileFirst {
				h.write(subPath, sub...)
				r.collect(t, id, 0, has(event.Assistant, "The workspace holds greeting.txt."))
				h.write(mainPath, progress...)
			} else {
				h.write(mainPath, progress...)
				time.Sleep(100 * time.Millisecond) // read alone: nothing shows for a progress record
				h.write(subPath, sub...)
				r.collect(t, id, 0, has(event.Assistant, "The workspace holds greeting.txt."))
			}
			h.write(mainPath, main[50:]...)
			evs := r.collect(t, id, 0, func(evs []event.Event) bool { return countTurns(evs, "") == 2 })
			var turns []event.Event
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					turns = append(turns, e)
				}
			}
			// By hand, Opus 5.5 at $4 in, $20 out, $5 5-minute write, $0.20 read:
			// turn 1's main responses: 7 of 100 in and 20 out, and one of 1200 in,
			// 300 written, 4000 read, 42 out; its subagent's: 2 of 100 in and 20 out.
			// Subagent: 200 × $4 + 40 × $20 = 800 + 800 µ$ = $0.0016.
			// Turn: 2100 × $4 + 222 × $20 + 300 × $5 + 4000 × $0.20
			//     = 8400 + 4440 + 1500 + 800 µ$ = $0.01514.
			// Turn 2: 2 of 100 in and 20 out, no subagent: 800 + 800 µ$ = $0.0016.
			want := []struct {
				u, sub     event.Usage
				usd, subUS float64
			}{
				{event.Usage{InputTokens: 2100, OutputTokens: 222, CacheCreationTokens: 300, CacheReadTokens: 4000},
					event.Usage{InputTokens: 200, OutputTokens: 40}, 0.01514, 0.0016},
				{event.Usage{InputTokens: 200, OutputTokens: 40}, event.Usage{}, 0.0016, 0},
			}
			for i, w := range want {
				tc := turns[i]
				if tc.Usage != w.u || tc.SubagentUsage != w.sub || !tc.CostKnown ||
					math.Abs(tc.CostUSD-w.usd) > 1e-9 || math.Abs(tc.SubagentCostUSD-w.subUS) > 1e-9 {
					t.Errorf("turn %d: %+v sub %+v $%v (sub $%v); want %+v sub %+v $%v (sub $%v)", i+1,
						tc.Usage, tc.SubagentUsage, tc.CostUSD, tc.SubagentCostUSD, w.u, w.sub, w.usd, w.subUS)
				}
			}
		})
	}
}

// TestFinishedSessionReadFromTheStart: the engine first sees a finished
// 2.0.77 session (the real corpus one: two turns, a subagent and three
// warm-ups in agent-*.jsonl beside it) and reads it from the start. Its
// agent files are read after its transcript, so their responses belong to
// turns already reported: they must not land in the session's next turn.
// That turn, live, counts its own response only, and not an agent file of
// another session in the same folder.
func TestFinishedSessionReadFromTheStart(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("replay")
	files, _ := filepath.Glob(filepath.Join(corpus20, "*.jsonl"))
	if len(files) != 5 {
		t.Fatalf("corpus: %v", files)
	}
	for _, f := range files {
		h.write(filepath.Join(proj, filepath.Base(f)), readLines(t, f, dir)...)
	}
	r := h.startWith(func(c *Config) { c.TailBytes, c.ColdTailBytes = 1<<20, 1<<20 })
	id := r.waitWorkspace(t, dir)
	turns := func(n int) func([]event.Event) bool {
		return func(evs []event.Event) bool {
			c := 0
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					c++
				}
			}
			return c >= n
		}
	}
	evs := r.collect(t, id, 0, turns(2))
	// The replayed turns keep their own responses. Turn 2 (2 of 100 in, 20
	// out) ran no subagent; turn 1's subagent is not in turn 1 either (read
	// too late, the limit of a first read from the start).
	var replayed []event.Usage
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			replayed = append(replayed, e.Usage, e.SubagentUsage)
		}
	}
	wantReplay := []event.Usage{{InputTokens: 1900, OutputTokens: 182, CacheCreationTokens: 300, CacheReadTokens: 4000}, {},
		{InputTokens: 200, OutputTokens: 40}, {}}
	if !slices.Equal(replayed, wantReplay) {
		t.Errorf("replayed turns (usage, subagents): %+v, want %+v", replayed, wantReplay)
	}
	last := evs[len(evs)-1].ID
	cwdOf[corpus20SID] = dir
	h.write(filepath.Join(proj, corpus20SID+".jsonl"), prompt(corpus20SID, "one more"))
	r.collect(t, id, last, has(event.User, "one more"))
	// Another session's subagent and this session's, in the same folder,
	// while this turn runs; the second one's event shows both were seen.
	other := strings.ReplaceAll(sideLine(dir, "not ours"), `"sessionId":"s9"`, `"sessionId":"99999999-0000-4000-8000-0000000000ff"`)
	h.write(filepath.Join(proj, "agent-other01.jsonl"), other)
	ours := strings.ReplaceAll(sideLine(dir, "ours"), `"sessionId":"s9"`, `"sessionId":"`+corpus20SID+`"`)
	h.write(filepath.Join(proj, "agent-ours01.jsonl"), ours)
	evs = r.collect(t, id, last, has(event.Assistant, "ours"))
	if has(event.Assistant, "not ours")(evs) {
		t.Errorf("another session's subagent shown in this one: %s", summary(evs))
	}
	h.write(filepath.Join(proj, corpus20SID+".jsonl"), answer(corpus20SID, "m-more", "done", "end_turn"), prompt(corpus20SID, "bye"))
	evs = r.collect(t, id, last, has(event.TurnComplete, ""))
	var tc event.Event
	for _, e := range evs {
		if e.Type == event.TurnComplete {
			tc = e
		}
	}
	// By hand: its response, 10 in × $3 + 5 out × $15 (Sonnet 4.5) = 30 + 75 µ$,
	// and its subagent's, 1 in × $1 + 1 out × $5 (Haiku 4.5) = 6 µ$.
	want, wantSub := event.Usage{InputTokens: 11, OutputTokens: 6}, event.Usage{InputTokens: 1, OutputTokens: 1}
	if tc.Usage != want || tc.SubagentUsage != wantSub || math.Abs(tc.CostUSD-0.000111) > 1e-12 || math.Abs(tc.SubagentCostUSD-0.000006) > 1e-12 {
		t.Errorf("the live turn: %+v (subagents %+v) $%v (subagents $%v); want %+v (subagents %+v) $0.000111 (subagents $0.000006)",
			tc.Usage, tc.SubagentUsage, tc.CostUSD, tc.SubagentCostUSD, want, wantSub)
	}
}
