package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/stream"
	"conductorbridge/bridge/transcript"
	"conductorbridge/bridge/transcript/synth"
)

// longTurn is one session's turn of many tool calls, written call by call
// (synth's realistic sizes) into a fake home, with a subagent at work
// beside it whose usage counts into the turn.
type longTurn struct {
	t         *testing.T
	h         *home
	dir, path string
	sub       string // the subagent's file
	buf       bytes.Buffer
	w         *synth.Writer
	calls     int
}

const longTurnSession = "0b0e0f10-1111-4222-8333-444455556666"

func newLongTurn(t *testing.T, withSub bool) *longTurn {
	h := newHome(t)
	dir, proj := h.workspace("long-turn")
	lt := &longTurn{t: t, h: h, dir: dir, path: filepath.Join(proj, longTurnSession+".jsonl")}
	lt.w = synth.New(&lt.buf, longTurnSession, dir, 7)
	if withSub {
		lt.sub = filepath.Join(proj, longTurnSession, "subagents", "agent-a1.jsonl")
		os.MkdirAll(filepath.Dir(lt.sub), 0o755)
	}
	lt.w.Prompt("a long turn")
	lt.flush()
	return lt
}

// flush appends what synth wrote to the transcript.
func (lt *longTurn) flush() {
	lt.t.Helper()
	lt.h.write(lt.path, strings.TrimSuffix(lt.buf.String(), "\n"))
	lt.buf.Reset()
}

// call writes one tool call and its result, and a line of the subagent's.
func (lt *longTurn) call() {
	lt.t.Helper()
	lt.calls++
	if err := lt.w.ToolCall(); err != nil {
		lt.t.Fatal(err)
	}
	lt.flush()
	if lt.sub != "" {
		lt.h.write(lt.sub, fmt.Sprintf(`{"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":%q,"cwd":%q,"message":{"id":"sub-%d","model":"claude-haiku-4-5","stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":7,"cache_read_input_tokens":100},"content":[{"type":"text","text":"sub step %d"}]}}`,
			longTurnSession, lt.dir, lt.calls, lt.calls))
	}
}

// end writes the turn's final answer.
func (lt *longTurn) end() {
	lt.t.Helper()
	lt.w.Text("all done", true)
	lt.flush()
}

// follower reads a workspace's stream as a client does, counting the
// events' bytes.
type follower struct {
	t       *testing.T
	sub     *stream.Subscriber
	topic   *stream.Topic
	got     []event.Event
	bytes   int64
	results int
}

func follow(t *testing.T, r *running, id string, after int64) *follower {
	t.Helper()
	topic, ok := r.eng.Topic(id)
	if !ok {
		t.Fatalf("no topic %s", id)
	}
	replay, _, sub := topic.Subscribe(after)
	f := &follower{t: t, sub: sub, topic: topic}
	for _, it := range replay {
		f.take(it)
	}
	t.Cleanup(func() { topic.Unsubscribe(sub) })
	return f
}

func (f *follower) take(it stream.Item) {
	e := it.Event()
	f.got, f.bytes = append(f.got, e), f.bytes+int64(len(it.Data))
	if e.Type == event.ToolResult && !e.Sidechain {
		f.results++
	}
}

// until reads on until pred holds.
func (f *follower) until(what string, pred func() bool) {
	f.t.Helper()
	for !pred() {
		select {
		case it, ok := <-f.sub.C:
			if !ok {
				f.t.Fatalf("stream closed waiting for %s", what)
			}
			f.take(*it)
		case <-timeoutAfter(10):
			f.t.Fatalf("timed out waiting for %s; last events %s", what, summary(f.got[max(0, len(f.got)-5):]))
		}
	}
}

func (f *follower) turnComplete() *event.Event {
	for i := range f.got {
		if f.got[i].Type == event.TurnComplete && !f.got[i].Sidechain {
			return &f.got[i]
		}
	}
	return nil
}

func journalFile(t *testing.T, h *home) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(h.state, "streams", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("journals %q, want one", files)
	}
	return files[0]
}

// TestLongTurnJournalStaysNearItsEvents: one turn of 1000 tool calls,
// followed live call by call. The journal used to repeat the session's
// whole resume state (kilobytes) with every batch, ten times the events;
// it must stay within 2× of the events' own bytes.
func TestLongTurnJournalStaysNearItsEvents(t *testing.T) {
	lt := newLongTurn(t, false)
	r := lt.h.start()
	id := r.waitWorkspace(t, lt.dir)
	f := follow(t, r, id, 0)
	f.until("the prompt", func() bool { return len(f.got) > 0 })
	journal := journalFile(t, lt.h)
	var written int64
	size := fileSize(journal)
	const calls = 1000
	for i := 1; i <= calls; i++ {
		lt.call()
		f.until(fmt.Sprintf("call %d's result", i), func() bool { return f.results == i })
		// The journal is written before the events are handed out.
		if now := fileSize(journal); now >= size {
			written += now - size
			size = now
		} else {
			written, size = written+now, now // compacted: the rewrite is written too
		}
	}
	lt.end()
	f.until("the turn's end", func() bool { return f.turnComplete() != nil })
	written += fileSize(journal) - size
	t.Logf("%d calls: journal %d B for %d B of events (%.2f×)", calls, written, f.bytes, float64(written)/float64(f.bytes))
	if written > 2*f.bytes {
		t.Errorf("journal wrote %d B for %d B of events: %.1f×, want at most 2×", written, f.bytes, float64(written)/float64(f.bytes))
	}
}

func timeoutAfter(seconds int) <-chan time.Time {
	return time.After(time.Duration(seconds) * time.Second)
}

// key is what two runs must agree on of an event: all but its id, the
// bridge's own clock (status and session times) and the home's paths.
func key(e event.Event, dir string) string {
	e.ID, e.Path = 0, ""
	if e.Type == event.Status || e.Type == event.Session {
		e.TS = time.Time{}
	}
	b, _ := json.Marshal(e)
	return strings.ReplaceAll(string(b), dir, "<dir>")
}

// keys are the keys of one kind of events: the session's own, its
// subagents' or the statuses. A turn's cost is a sum of floats whose
// order follows when the subagent's file was read, so it is compared
// apart, to the cent's billionth.
func keys(evs []event.Event, dir, kind string) []string {
	var out []string
	for _, e := range evs {
		k := "session"
		switch {
		case e.Type == event.Status:
			k = "status"
		case e.Sidechain:
			k = "sidechain"
		}
		if k == kind {
			e.CostUSD, e.SubagentCostUSD = 0, 0
			out = append(out, key(e, dir))
		}
	}
	return out
}

// lastLine is the journal's last line.
func lastLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	return lines[len(lines)-1]
}

// TestRestartAfterDeltasResumesTheTurnExactly: a turn of tool calls with
// a subagent at work, the bridge stopped mid-turn while the journal's
// last lines are deltas (the parser's state is in none of them), calls
// written while it is down, then the rest live. Against the same turn
// followed without a stop: the same events, none twice or missing, ids
// contiguous, and the turn_complete's tokens and cost the same — the
// state rebuilt from the transcript's bytes is the state it had.
func TestRestartAfterDeltasResumesTheTurnExactly(t *testing.T) {
	const calls, stopAfter, whileDown = 150, 100, 5

	// The turn followed without a stop.
	ref := newLongTurn(t, true)
	rr := ref.h.start()
	f := follow(t, rr, rr.waitWorkspace(t, ref.dir), 0)
	for i := 1; i <= calls; i++ {
		ref.call()
		f.until("a result", func() bool { return f.results == i })
	}
	ref.end()
	f.until("the turn's end", func() bool { return f.turnComplete() != nil })
	want := f.got

	// The same turn, stopped after stopAfter calls.
	lt := newLongTurn(t, true)
	r := lt.h.start()
	id := r.waitWorkspace(t, lt.dir)
	f1 := follow(t, r, id, 0)
	for lt.calls < stopAfter || !strings.Contains(lastLine(t, journalFile(t, lt.h)), `"d":`) {
		if lt.calls == calls-whileDown {
			t.Fatal("no call left a delta as the journal's last line: nothing to replay")
		}
		lt.call()
		f1.until("a result", func() bool { return f1.results == lt.calls })
	}
	// The subagent's last line may still be on its way.
	f1.until("the subagent", func() bool {
		return has(event.Assistant, fmt.Sprintf("sub step %d", lt.calls))(f1.got[max(0, len(f1.got)-8):])
	})
	if !strings.Contains(lastLine(t, journalFile(t, lt.h)), `"d":`) {
		t.Fatal("the journal's last line is a whole mark: nothing to replay")
	}
	r.stop()
	for range whileDown {
		lt.call()
	}
	r2 := lt.h.start()
	r2.waitWorkspace(t, lt.dir)
	f2 := follow(t, r2, id, f1.got[len(f1.got)-1].ID)
	f2.until("the calls written while down", func() bool { return f2.results == whileDown })
	for lt.calls < calls {
		lt.call()
		f2.until("a result", func() bool { return f1.results+f2.results == lt.calls })
	}
	lt.end()
	f2.until("the turn's end", func() bool { return f2.turnComplete() != nil })
	got := append(append([]event.Event(nil), f1.got...), f2.got...)

	for i := 1; i < len(got); i++ {
		if got[i].ID != got[i-1].ID+1 {
			t.Fatalf("ids not contiguous across the restart at %d: %d then %d", i, got[i-1].ID, got[i].ID)
		}
	}
	// The session's events and its subagent's each in order, and the
	// statuses in order: the two files are read as they are found
	// written, and a status follows the batch that changed it, so the
	// three interleave differently from run to run.
	for _, side := range []string{"session", "sidechain", "status"} {
		a, b := keys(got, lt.dir, side), keys(want, ref.dir, side)
		if len(a) != len(b) {
			t.Errorf("%s: %d events across the restart, %d without", side, len(a), len(b))
		}
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("%s: event %d differs across the restart:\n got %s\nwant %s", side, i, a[i], b[i])
			}
		}
	}
	tc, wtc := f2.turnComplete(), f.turnComplete()
	if tc.Usage != wtc.Usage || math.Abs(tc.CostUSD-wtc.CostUSD) > 1e-9 || math.Abs(tc.SubagentCostUSD-wtc.SubagentCostUSD) > 1e-9 ||
		tc.SubagentUsage != wtc.SubagentUsage || tc.SubagentUsage.OutputTokens == 0 {
		t.Errorf("turn after a restart: usage %+v cost %v (subagents %+v); without: %+v %v (%+v)",
			tc.Usage, tc.CostUSD, tc.SubagentUsage, wtc.Usage, wtc.CostUSD, wtc.SubagentUsage)
	}
}

// TestWholeMarkWhenTheBytesDoNotExplainTheChange: a delta stands for the
// mark only when a restart can rebuild the state from the bytes; every
// other change journals the whole mark. The session is at work, its turn
// open (a prompt, and a response whose end only a quiet spell or the
// Stop hook tells): what the engine does to its parser with no line read
// (a hook's word, a quiet spell, the agent gone) changes the state beyond
// what the bytes explain, and is journaled whole, unless it changed
// nothing. The hash of the state the engine took before says the same.
func TestWholeMarkWhenTheBytesDoNotExplainTheChange(t *testing.T) {
	const id = "0b0e0f10-0000-4000-8000-000000000001"
	open := []string{
		`{"type":"user","sessionId":"` + id + `","timestamp":"2026-01-01T00:00:01Z","message":{"role":"user","content":"go"}}`,
		`{"type":"assistant","sessionId":"` + id + `","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m1","model":"claude-sonnet-4-5","stop_reason":null,"usage":{"input_tokens":10,"output_tokens":5},"content":[{"type":"text","text":"working"}]}}`,
	}
	hooked := func(tl *tail) agent.StopHooked { return tl.parser.(agent.StopHooked) }
	tests := []struct {
		name   string
		change func(w *workspace, tl *tail)
		whole  bool
		want   string // the delta's JSON, when not whole
	}{
		{"nothing", func(*workspace, *tail) {}, false, `{"s":{}}`},
		{"read on", func(_ *workspace, tl *tail) {
			tl.reader.Offset += 300
			tl.parser.(*transcript.Parser).State.LastText = "more"
		}, false, `{"s":{"` + id + `":{"o":400}}}`},
		{"status", func(_ *workspace, tl *tail) { tl.status, tl.reason = event.StateNeedsInput, "question" }, false, ""},
		{"a line read", func(_ *workspace, tl *tail) {
			tl.parser.Line([]byte(`{"type":"assistant","sessionId":"`+id+`","timestamp":"2026-01-01T00:00:03Z","message":{"id":"m2","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"text","text":"more"}]}}`), nil)
			tl.reader.Offset += 200
		}, false, `{"s":{"` + id + `":{"o":300}}}`},
		{"the record read to its end, nothing due", func(_ *workspace, tl *tail) { tl.parser.Flush(nil) }, false, `{"s":{}}`},
		{"a hook ended the turn", func(_ *workspace, tl *tail) { tl.parser.EndTurn(nil) }, true, ""},
		{"the Stop hook's word", func(_ *workspace, tl *tail) { hooked(tl).StopEnded(nil) }, true, ""},
		{"a quiet spell", func(_ *workspace, tl *tail) { tl.parser.Quiet(nil) }, true, ""},
		{"the agent gone", func(_ *workspace, tl *tail) { tl.parser.Interrupt(nil) }, true, ""},
		{"the hooks call in", func(_ *workspace, tl *tail) { hooked(tl).HookedStops() }, true, ""},
		{"a Stop hook went on", func(_ *workspace, tl *tail) { hooked(tl).StopGoesOn() }, true, ""},
		{"the backstop", func(_ *workspace, tl *tail) { hooked(tl).Backstop(nil) }, true, ""},
		{"the hooks call in, then a line read", func(_ *workspace, tl *tail) {
			hooked(tl).HookedStops()
			tl.beforeRead()
			tl.parser.Line([]byte(`{"type":"assistant","sessionId":"`+id+`","timestamp":"2026-01-01T00:00:03Z","message":{"id":"m2","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"text","text":"more"}]}}`), nil)
			tl.reader.Offset += 200
		}, true, ""},
		{"a line read that ends the turn", func(_ *workspace, tl *tail) {
			tl.beforeRead()
			if evs, _ := tl.parser.Line([]byte(`{"type":"user","sessionId":"`+id+`","timestamp":"2026-01-01T00:00:04Z","message":{"role":"user","content":"next"}}`), nil); len(evs) == 0 || evs[0].Type != event.TurnComplete {
				t.Errorf("the prompt ended no turn: %+v", evs)
			}
			tl.reader.Offset += 200
		}, false, `{"s":{"` + id + `":{"o":300}}}`},
		{"a record of rows read on", func(_ *workspace, tl *tail) {
			tl.rows = rowsNamed(tl.reader.Path) // its lines move no offset
			tl.parser.Line([]byte(`{"type":"assistant","sessionId":"`+id+`","timestamp":"2026-01-01T00:00:03Z","message":{"id":"m2","model":"claude-sonnet-4-5","stop_reason":null,"content":[{"type":"text","text":"more"}]}}`), nil)
		}, true, ""},
		{"read again from the start", func(_ *workspace, tl *tail) { tl.rewound = true }, true, ""},
		{"offset back", func(_ *workspace, tl *tail) { tl.reader.Offset = 50 }, true, ""},
		{"session added", func(w *workspace, _ *tail) {
			w.tails["other"] = &tail{id: "other", reader: linefile.Reader{Path: "/x/other.jsonl"}, parser: &transcript.Parser{}}
		}, true, ""},
		{"session retired", func(w *workspace, _ *tail) { w.retired = map[string]tailMark{"/x/old.jsonl": {Offset: 9}} }, true, ""},
		{"subagent started", func(_ *workspace, tl *tail) {
			sp, _ := claude.Agent{}.NewSubParser(nil)
			tl.subs = map[string]*subTail{"/x/" + id + "/subagents/agent-1.jsonl": {grew: time.Now(), parser: sp}}
		}, true, ""},
		{"turn ended after a little", func(_ *workspace, tl *tail) { tl.reader.Offset += 1000; tl.status = event.StateIdle }, false, ""},
		{"turn ended after much", func(_ *workspace, tl *tail) { tl.reader.Offset += idleReplay + 1; tl.status = event.StateIdle }, true, ""},
		{"far into a turn", func(_ *workspace, tl *tail) { tl.reader.Offset += maxReplay + 1 }, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &transcript.Parser{}
			for _, l := range open {
				if _, err := p.Line([]byte(l), nil); err != nil {
					t.Fatal(err)
				}
			}
			tl := &tail{id: id, reader: linefile.Reader{Path: "/x/" + id + ".jsonl", Offset: 100}, parser: p, status: event.StateWorking}
			w := &workspace{tails: map[string]*tail{id: tl}}
			w.journaledAs(w.mark(), true)
			tt.change(w, tl)
			d, whole := w.delta(w.mark())
			if whole != tt.whole {
				t.Fatalf("whole = %v, want %v (delta %+v)", whole, tt.whole, d)
			}
			if b, _ := json.Marshal(d); !whole && tt.want != "" && string(b) != tt.want {
				t.Errorf("delta %s, want %s", b, tt.want)
			}
		})
	}
}

// TestWholeMarkWhenCodexChangesWithNothingRead: a Codex rollout's
// parser, at work in a turn whose end only a quiet spell tells (0.47),
// changed by what the engine does with no line read (a hook's word that
// Codex waits, a quiet spell, the agent gone) journals the whole mark;
// the same word again, or the record read to its end, changes nothing.
func TestWholeMarkWhenCodexChangesWithNothingRead(t *testing.T) {
	const id = "01a23811-643b-7fd1-becb-a00ecd3aba68"
	ask := func(p agent.Parser) { p.(agent.Asker).Ask(event.ReasonQuestion) }
	tests := []struct {
		name           string
		before, change func(p agent.Parser) // before the journal's last line, after
		whole          bool
	}{
		{"nothing", nil, func(agent.Parser) {}, false},
		{"a hook says Codex waits", nil, ask, true},
		{"the same word again", ask, ask, false},
		{"the record read to its end", nil, func(p agent.Parser) { p.Flush(nil) }, false},
		{"a quiet spell", nil, func(p agent.Parser) { p.Quiet(nil) }, true},
		{"the notify program ended the turn", nil, func(p agent.Parser) { p.EndTurn(nil) }, true},
		{"the agent gone", nil, func(p agent.Parser) { p.Interrupt(nil) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := codex.Agent{}.NewParser(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range []string{
				`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"` + id + `","cwd":"/x","cli_version":"0.47.0"}}`,
				`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}`,
				`{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done, I think"}]}}`,
			} {
				if _, err := p.Line([]byte(l), nil); err != nil {
					t.Fatal(err)
				}
			}
			if tt.before != nil {
				tt.before(p)
			}
			if !p.InTurn() || !p.Unsure() {
				t.Fatal("the rollout left no turn open whose end a quiet spell tells")
			}
			tl := &tail{id: id, agent: "codex", reader: linefile.Reader{Path: "/x/rollout-" + id + ".jsonl", Offset: 100}, parser: p, status: event.StateWorking}
			w := &workspace{tails: map[string]*tail{id: tl}}
			w.journaledAs(w.mark(), true)
			tt.change(p)
			if d, whole := w.delta(w.mark()); whole != tt.whole {
				t.Fatalf("whole = %v, want %v (delta %+v)", whole, tt.whole, d)
			}
		})
	}
}

// rowsNamed is a record of rows known by its name alone: a tail holding
// one reads it rather than a file (rows.go).
type rowsNamed string

func (r rowsNamed) Name() string { return string(r) }
func (r rowsNamed) DB() string   { return string(r) }
func (rowsNamed) Read(context.Context, agent.Parser, int, func([]byte)) (bool, error) {
	return false, nil
}
func (rowsNamed) Close() error { return nil }

// TestRestartAfterDeltasOnAShorterTranscript: while the bridge was down,
// the transcript was cut short (rewritten) below the deltas' offsets. The
// bytes cannot be parsed again, so the session resumes at its journaled
// position, as it did before deltas: the reader finds the file shorter and
// reads it again from its start.
func TestRestartAfterDeltasOnAShorterTranscript(t *testing.T) {
	lt := newLongTurn(t, false)
	r := lt.h.start()
	id := r.waitWorkspace(t, lt.dir)
	f := follow(t, r, id, 0)
	for lt.calls < 20 || !strings.Contains(lastLine(t, journalFile(t, lt.h)), `"d":`) {
		if lt.calls == 200 {
			t.Fatal("no delta as the journal's last line")
		}
		lt.call()
		f.until("a result", func() bool { return f.results == lt.calls })
	}
	r.stop()
	line := fmt.Sprintf(`{"type":"user","sessionId":%q,"cwd":%q,"timestamp":"2026-11-02T00:00:00Z","message":{"role":"user","content":"after the cut"}}`, longTurnSession, lt.dir)
	if err := os.WriteFile(lt.path, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r2 := lt.h.start()
	r2.waitWorkspace(t, lt.dir)
	last := f.got[len(f.got)-1].ID
	f2 := follow(t, r2, id, last)
	f2.until("the rewritten transcript", func() bool { return has(event.User, "after the cut")(f2.got) })
	if f2.got[0].ID != last+1 {
		t.Errorf("first id after the restart %d, want %d", f2.got[0].ID, last+1)
	}
}

// TestMarkStaysTheBatchs: a mark may be encoded after its workspace
// has read on (the journal makes it only when it writes it whole), so it
// must hold copies, not the live parsers' maps or the retired list: here
// a subagent's open tool call and a retired session come after the mark
// was made, and encoding it still gives the batch's state.
func TestMarkStaysTheBatchs(t *testing.T) {
	const id = "0b0e0f10-0000-4000-8000-000000000002"
	sub := "/x/" + id + "/subagents/agent-1.jsonl"
	sp, err := claude.Agent{}.NewSubParser(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Line([]byte(sideToolLine("toolu_1", "Read")), nil); err != nil {
		t.Fatal(err)
	}
	st := &subTail{grew: time.Now(), reader: linefile.Reader{Path: sub, Offset: 10}, parser: sp}
	tl := &tail{id: id, reader: linefile.Reader{Path: "/x/" + id + ".jsonl", Offset: 100}, parser: &transcript.Parser{},
		status: event.StateWorking, subs: map[string]*subTail{sub: st}}
	w := &workspace{tails: map[string]*tail{id: tl}, retired: map[string]tailMark{"/x/a.jsonl": {Offset: 1}}}
	c := w.mark()
	before, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.Line([]byte(sideToolLine("toolu_2", "Bash")), nil); err != nil {
		t.Fatal(err)
	}
	w.retired["/x/b.jsonl"] = tailMark{Offset: 2}
	after, _ := json.Marshal(c)
	if string(after) != string(before) {
		t.Errorf("the mark changed with the workspace after it was made:\nbefore %s\nafter  %s", before, after)
	}
}

// The shape must move with every field a delta cannot carry, and only
// with those; string boundaries count ("ab"+"c" is not "a"+"bc").
func TestShapeSeesWhatADeltaCannotCarry(t *testing.T) {
	base := tailMark{Path: "/p/a.jsonl", Agent: "claude", Needs: "", Offset: 10,
		Subs: map[string]subMark{"/p/a/subagents/x.jsonl": {Offset: 1}}}
	for _, tt := range []struct {
		name  string
		edit  func(*tailMark)
		moves bool
	}{
		{"path", func(c *tailMark) { c.Path = "/p/b.jsonl" }, true},
		{"agent", func(c *tailMark) { c.Agent = "codex" }, true},
		{"needs", func(c *tailMark) { c.Needs = "question" }, true},
		{"boundary", func(c *tailMark) { c.Path, c.Agent = "/p/a.jsonlc", "laude" }, true},
		{"subs done", func(c *tailMark) { c.SubsDone = time.Unix(5, 0) }, true},
		{"a subagent more", func(c *tailMark) {
			c.Subs = map[string]subMark{"/p/a/subagents/x.jsonl": {}, "/p/a/subagents/y.jsonl": {}}
		}, true},
		{"another subagent", func(c *tailMark) { c.Subs = map[string]subMark{"/p/a/subagents/y.jsonl": {Offset: 1}} }, true},
		{"no subagent", func(c *tailMark) { c.Subs = nil }, true},
		{"offset", func(c *tailMark) { c.Offset = 99 }, false},
		{"a subagent's offset", func(c *tailMark) { c.Subs = map[string]subMark{"/p/a/subagents/x.jsonl": {Offset: 7}} }, false},
	} {
		c := base
		tt.edit(&c)
		was := journaledOf(base, nil)
		if moved := !sameShape(c, &was); moved != tt.moves {
			t.Errorf("%s: shape moved %v, want %v", tt.name, moved, tt.moves)
		}
	}
	two := map[string]subMark{"/b": {Parser: []byte("2")}, "/a": {Parser: []byte("1")}}
	var h maphash.Hash
	tl := &tail{parser: &transcript.Parser{}}
	for range 20 { // map order must not matter
		if stateOf(&h, tl, tailMark{Subs: two}) != stateOf(&h, tl, tailMark{Subs: map[string]subMark{"/a": {Parser: []byte("1")}, "/b": {Parser: []byte("2")}}}) {
			t.Fatal("stateOf depends on map order")
		}
	}
}

// The workspace's shape must move with every session followed or let
// go and every retired entry, and only with those; set, which keeps the
// shape it holds when c has it already, must take each new one.
func TestWorkspaceShapeSeesSessionsComeAndGo(t *testing.T) {
	base := func() mark {
		return mark{Sessions: map[string]tailMark{"a": {Offset: 1}, "b": {Offset: 2}},
			Retired: map[string]tailMark{"/p/r.jsonl": {Offset: 3, Left: time.Unix(7, 0)}}}
	}
	for _, tt := range []struct {
		name  string
		edit  func(*mark)
		moves bool
	}{
		{"a session more", func(c *mark) { c.Sessions["c"] = tailMark{} }, true},
		{"a session less", func(c *mark) { delete(c.Sessions, "b") }, true},
		{"a session for another", func(c *mark) { delete(c.Sessions, "b"); c.Sessions["c"] = tailMark{} }, true},
		{"a retired more", func(c *mark) { c.Retired["/p/s.jsonl"] = tailMark{} }, true},
		{"a retired for another", func(c *mark) {
			c.Retired = map[string]tailMark{"/p/s.jsonl": {Offset: 3, Left: time.Unix(7, 0)}}
		}, true},
		{"a retired offset", func(c *mark) { c.Retired["/p/r.jsonl"] = tailMark{Offset: 4, Left: time.Unix(7, 0)} }, true},
		{"a retired leaving", func(c *mark) { c.Retired["/p/r.jsonl"] = tailMark{Offset: 3, Left: time.Unix(8, 0)} }, true},
		{"none retired", func(c *mark) { c.Retired = nil }, true},
		{"an offset", func(c *mark) { c.Sessions["a"] = tailMark{Offset: 9} }, false},
		{"nothing", func(*mark) {}, false},
	} {
		var s workspaceShape
		s.set(base())
		c := base()
		tt.edit(&c)
		if moved := !s.same(c); moved != tt.moves {
			t.Errorf("%s: shape moved %v, want %v", tt.name, moved, tt.moves)
		}
		s.set(c)
		if !s.same(c) {
			t.Errorf("%s: set kept the shape before", tt.name)
		}
		if tt.moves && s.same(base()) {
			t.Errorf("%s: the new shape is the one before's", tt.name)
		}
	}
}

// The subagents' offsets a journal line holds replace those of the line
// before in the map it held (journaledOf reuses it): none stays behind.
func TestJournaledSubsAreTheLinesOwn(t *testing.T) {
	before := tailMark{Subs: map[string]subMark{"/s/a.jsonl": {Offset: 1}, "/s/b.jsonl": {Offset: 2}}}
	for _, tt := range []struct {
		name string
		subs map[string]subMark
		want map[string]int64
	}{
		{"the same, moved", map[string]subMark{"/s/a.jsonl": {Offset: 5}, "/s/b.jsonl": {Offset: 2}},
			map[string]int64{"/s/a.jsonl": 5, "/s/b.jsonl": 2}},
		{"one gone, one new", map[string]subMark{"/s/b.jsonl": {Offset: 3}, "/s/c.jsonl": {Offset: 4}},
			map[string]int64{"/s/b.jsonl": 3, "/s/c.jsonl": 4}},
		{"none", nil, nil},
	} {
		was := journaledOf(before, nil)
		now := journaledOf(tailMark{Subs: tt.subs}, was.subs)
		if !maps.Equal(now.subs, tt.want) {
			t.Errorf("%s: subs %v, want %v", tt.name, now.subs, tt.want)
		}
		if !sameShape(tailMark{Subs: tt.subs}, &now) {
			t.Errorf("%s: the line's shape is not its own", tt.name)
		}
	}
	was := journaledOf(before, nil)
	if n := testing.AllocsPerRun(100, func() { was = journaledOf(before, was.subs) }); n != 0 {
		t.Errorf("journaling the same subagents again allocates %v times, want 0", n)
	}
}
