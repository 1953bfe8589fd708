package cursor_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/testkit/eventtest"
)

// lines reads a corpus file's lines.
func lines(t *testing.T, dir, name string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", dir, name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// TestFailedRuns: a run that ended in ERROR ends its turn once, with no
// usage and a cost of $0 (nothing was spent), its duration from the run's
// start to the status event (the store writes no finished_at for it), and
// the error code the run row keeps.
func TestFailedRuns(t *testing.T) {
	cases := []struct {
		name       string
		assistant  int
		durationMS int64
		failed     string
	}{
		// started_at 03:58:07.502, the ERROR status 03:58:24.205.
		{"error-unimplemented", 0, 16703, "[unimplemented] fake server"},
		// started_at 04:00:50.315, the ERROR status 04:01:06.495; the
		// answer written four times as the SDK retried.
		{"error-retried", 4, 16180, "[internal] parse binary: premature EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, _ := cursor.NewParser(nil)
			evs := eventtest.Parse(t, p, lines(t, "failed", c.name), nil)
			if n := len(eventtest.OfType(evs, event.Assistant)); n != c.assistant {
				t.Errorf("%d assistant events, want %d", n, c.assistant)
			}
			tc := eventtest.OfType(evs, event.TurnComplete)
			if len(tc) != 1 {
				t.Fatalf("%d turn_complete, want 1: %+v", len(tc), evs)
			}
			e := tc[0]
			if e.Usage != (event.Usage{}) || !e.CostKnown || e.CostUSD != 0 || e.DurationMS != c.durationMS || e.Interrupted || e.Model != "auto" {
				t.Errorf("turn_complete %+v, want no usage, $0 known, %d ms, model auto", e, c.durationMS)
			}
			if p.InTurn() || p.Failed() != c.failed {
				t.Errorf("in turn %v, failed %q: want idle, %q", p.InTurn(), p.Failed(), c.failed)
			}
			if p.AgentID() == "" || !strings.HasPrefix(p.AgentID(), "agent-") {
				t.Errorf("agent %q", p.AgentID())
			}
		})
	}
}

// rewrite changes each line's object by edit (a reader that read the
// rows at another moment, or another event).
func rewrite(t *testing.T, ls [][]byte, edit func(i int, m map[string]any)) [][]byte {
	t.Helper()
	var out [][]byte
	for i, l := range ls {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		edit(i, m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestEndReadBeforeTheRunRow: the SDK writes a run's FINISHED status event
// just before it updates the run row; rows read between the two still
// say RUNNING with no usage_json nor finished_at. The turn still ends
// there, with the usage event's tokens and its duration up to the status
// event.
func TestEndReadBeforeTheRunRow(t *testing.T) {
	ls := rewrite(t, lines(t, "corpus", "finished"), func(_ int, m map[string]any) {
		m["status"] = "RUNNING"
		delete(m, "usage")
		delete(m, "finished")
	})
	p, _ := cursor.NewParser(nil)
	tc := eventtest.OfType(eventtest.Parse(t, p, ls, nil), event.TurnComplete)
	// The usage event: 11 in, 7 out; started_at 04:02:13.169, the
	// FINISHED event 04:02:13.992.
	want := event.Usage{InputTokens: 11, OutputTokens: 7}
	if len(tc) != 1 || tc[0].Usage != want || tc[0].DurationMS != 823 || tc[0].CostKnown {
		t.Fatalf("turn_complete %+v, want usage %+v, 823 ms, cost unknown", tc, want)
	}
	if p.InTurn() {
		t.Error("the run is over but a turn is open")
	}
}

// TestRunStates: a run working is a turn open; cancelled, it ends
// interrupted; the stream's later result event of the same run ends
// nothing more.
func TestRunStates(t *testing.T) {
	tool := lines(t, "corpus", "tool")
	// Through the running tool call (seq 4).
	running := rewrite(t, tool[:4], func(_ int, m map[string]any) {
		m["status"] = "RUNNING"
		delete(m, "usage")
		delete(m, "finished")
	})
	p, _ := cursor.NewParser(nil)
	evs := eventtest.Parse(t, p, running, nil)
	if !p.InTurn() || len(eventtest.OfType(evs, event.ToolUse)) != 1 || len(eventtest.OfType(evs, event.ToolResult)) != 0 {
		t.Fatalf("in turn %v, events %+v: want a turn open on a call without result", p.InTurn(), evs)
	}
	cancelled := rewrite(t, tool[6:7], func(_ int, m map[string]any) {
		m["status"] = "CANCELLED"
		delete(m, "usage")
		m["payload"].(map[string]any)["message"].(map[string]any)["status"] = "CANCELLED"
	})
	result := rewrite(t, tool[6:7], func(_ int, m map[string]any) {
		m["seq"] = 8
		m["payload"] = map[string]any{"schemaVersion": 1, "type": "result", "status": "cancelled"}
	})
	evs = eventtest.Parse(t, p, append(cancelled, result...), nil)
	tc := eventtest.OfType(evs, event.TurnComplete)
	if len(tc) != 1 || !tc[0].Interrupted || p.InTurn() {
		t.Fatalf("events %+v: want one interrupted turn_complete", evs)
	}
}

// TestTextIsCut: text and a tool's output over 500 characters are cut to
// 500 and say so.
func TestTextIsCut(t *testing.T) {
	long := strings.Repeat("é", 1200)
	tool := lines(t, "corpus", "tool")
	ls := rewrite(t, tool[2:5], func(i int, m map[string]any) {
		msg := m["payload"].(map[string]any)["message"].(map[string]any)
		switch i {
		case 0:
			msg["message"] = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": long}}}
		case 1:
			msg["args"] = map[string]any{"path": long}
		case 2:
			msg["result"] = map[string]any{"status": "success", "value": map[string]any{"content": long}}
		}
	})
	p, _ := cursor.NewParser(nil)
	evs := eventtest.Parse(t, p, ls, nil)
	if len(evs) != 3 {
		t.Fatalf("events %+v", evs)
	}
	for _, f := range []struct {
		text string
		cut  bool
	}{{evs[0].Content, evs[0].Truncated}, {evs[1].Input, evs[1].TruncIn}, {evs[2].Output, evs[2].TruncOut}} {
		if n := utf8.RuneCountInString(f.text); n != 500 || !f.cut {
			t.Errorf("%d characters, cut %v: want 500, cut", n, f.cut)
		}
	}
}

// TestFailedToolCall: a tool call whose status is error, or whose result
// says so, is a failed result.
func TestFailedToolCall(t *testing.T) {
	tool := lines(t, "corpus", "tool")
	for _, c := range []struct {
		name   string
		status string
		result any
		output string
	}{
		{"status error", "error", map[string]any{"status": "error", "value": "no such file"}, "no such file"},
		{"result error", "completed", map[string]any{"error": map[string]any{"message": "denied"}}, "denied"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ls := rewrite(t, tool[3:5], func(i int, m map[string]any) {
				if i == 1 {
					msg := m["payload"].(map[string]any)["message"].(map[string]any)
					msg["status"], msg["result"] = c.status, c.result
				}
			})
			p, _ := cursor.NewParser(nil)
			tr := eventtest.OfType(eventtest.Parse(t, p, ls, nil), event.ToolResult)
			if len(tr) != 1 || !tr[0].IsError || tr[0].Output != c.output || tr[0].Name != "read" {
				t.Fatalf("results %+v, want one failed read, %q", tr, c.output)
			}
		})
	}
}

// TestCostFromThePriceTable: the store keeps no cost; a table that knows
// the run's model prices it, the built-in one does not know "auto".
func TestCostFromThePriceTable(t *testing.T) {
	table, err := price.Parse([]byte(`{"models":{"auto":{"input":1,"output":2,"cache_write_5m":0,"cache_read":0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		table *price.Table
		known bool
		usd   float64
	}{
		{"built-in", nil, false, 0},
		// 11 input tokens at $1 and 7 output at $2 a million.
		{"knows auto", table, true, 25e-6},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := (&cursor.Driver{}).NewParser(nil, c.table)
			if err != nil {
				t.Fatal(err)
			}
			var evs []event.Event
			for _, l := range lines(t, "corpus", "finished") {
				if evs, err = p.Line(l, evs); err != nil {
					t.Fatal(err)
				}
			}
			tc := eventtest.OfType(evs, event.TurnComplete)
			if len(tc) != 1 || tc[0].CostKnown != c.known || (c.known && (tc[0].CostUSD < c.usd*0.999 || tc[0].CostUSD > c.usd*1.001)) {
				t.Fatalf("turn_complete %+v: want cost known %v, $%g", tc, c.known, c.usd)
			}
		})
	}
}

// TestRowsReadTwiceAddNothing: rows at or before the last read (a reader
// going again from an older mark) emit nothing; a line that is not a row
// is refused and changes nothing.
func TestRowsReadTwiceAddNothing(t *testing.T) {
	ls := lines(t, "corpus", "tool")
	p, _ := cursor.NewParser(nil)
	once := eventtest.Parse(t, p, ls, nil)
	if again := eventtest.Parse(t, p, ls, nil); len(again) != 0 {
		t.Errorf("the rows again gave %+v", again)
	}
	before, _ := p.Save()
	for _, bad := range []string{"not json", `[1]`, `{"seq":1}`, `{"turn":"1","seq":1}`, `{"turn":0,"seq":1}`, `{"turn":1.5,"seq":1}`} {
		if _, err := p.Line([]byte(bad), nil); !errors.Is(err, cursor.ErrNotRow) {
			t.Errorf("%s: %v, want ErrNotRow", bad, err)
		}
	}
	if after, _ := p.Save(); !bytes.Equal(before, after) {
		t.Errorf("bad lines changed the state: %s → %s", before, after)
	}
	if len(once) != 4 { // the answer, the call, its result, the end
		t.Errorf("%d events from the tool run, want 4", len(once))
	}
}

// TestARunCutOffEndsAtTheNext: a run whose end was never written (the
// process was killed after its usage event) ends, interrupted with what it
// spent, when the agent's next run starts; then the next run is its own
// turn.
func TestARunCutOffEndsAtTheNext(t *testing.T) {
	first := lines(t, "corpus", "finished")
	cut := rewrite(t, first[:4], func(_ int, m map[string]any) { // through the usage event
		m["status"] = "RUNNING"
		delete(m, "usage")
		delete(m, "finished")
	})
	next := rewrite(t, first, func(_ int, m map[string]any) {
		m["turn"], m["run"] = 2, "run-2"
	})
	p, _ := cursor.NewParser(nil)
	tc := eventtest.OfType(eventtest.Parse(t, p, append(cut, next...), nil), event.TurnComplete)
	want := event.Usage{InputTokens: 11, OutputTokens: 7}
	if len(tc) != 2 || !tc[0].Interrupted || tc[0].Usage != want || tc[1].Interrupted || tc[1].Usage != want {
		t.Fatalf("turn_complete %+v: want the cut-off run interrupted with its usage, then the next", tc)
	}
}
