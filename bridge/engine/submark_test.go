package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/linefile"
	"conductorbridge/bridge/transcript"
)

// TestSubagentMarksStaySmall: a session that ran 200 subagents, one of
// them still waiting on a tool. The journaled mark carries that one,
// and one time for the rest, so it does not grow with the session; after
// a restart the finished subagents are not read again, and the one at
// work resumes where it was.
func TestSubagentMarksStaySmall(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("many-subs")
	sid := "77777777-0000-4000-8000-000000000007"
	main := filepath.Join(proj, sid+".jsonl")
	h.write(main, prompt("s7", "delegate"))
	subDir := filepath.Join(proj, sid, "subagents")
	os.MkdirAll(subDir, 0o755)

	e := New(Config{})
	w := &workspace{eng: e}
	tl := &tail{id: sid, reader: linefile.Reader{Path: main}, parser: &transcript.Parser{}, nest: claude.Agent{}}
	const n = 200
	for i := range n {
		h.write(filepath.Join(subDir, fmt.Sprintf("agent-%03d.jsonl", i)), sideLine(dir, fmt.Sprintf("sub %d", i)))
	}
	if evs := tl.readSubagents(w, nil, false); len(evs) < n {
		t.Fatalf("read %d events from %d subagents", len(evs), n)
	}
	// All but the last finished over a minute ago; the last has a tool
	// call open.
	past := time.Now().Add(-2 * subIdle)
	for p, st := range tl.subs {
		st.grew = past
		if filepath.Base(p) == fmt.Sprintf("agent-%03d.jsonl", n-1) {
			if _, err := st.parser.Line([]byte(sideToolLine("toolu_1", "Bash")), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	tc := tl.mark()
	if len(tc.Subs) != 1 || !tc.SubsDone.Equal(past) {
		t.Fatalf("mark keeps %d subagents, done %v; want 1 and %v", len(tc.Subs), tc.SubsDone, past)
	}
	raw, err := json.Marshal(tc)
	if err != nil {
		t.Fatal(err)
	}
	// The session's parser state holds what the subagents spent, bounded
	// by its count-once window whatever their number; the rest of the
	// mark must not grow with them.
	if len(raw)-len(tc.Parser) > 2048 || len(tc.Parser) > 4096 {
		t.Errorf("mark of a session with %d subagents: %d bytes, %d of them the parser's", n, len(raw), len(tc.Parser))
	}
	if b, _ := json.Marshal(tl.mark()); string(b) != string(raw) {
		t.Errorf("the mark changed with nothing read:\n%s\n%s", raw, b)
	}

	// A restart: the finished files were last changed before SubsDone.
	for i := range n - 1 {
		os.Chtimes(filepath.Join(subDir, fmt.Sprintf("agent-%03d.jsonl", i)), past.Add(-time.Second), past.Add(-time.Second))
	}
	var back tailMark
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	r := &tail{id: sid, reader: linefile.Reader{Path: main}, parser: &transcript.Parser{}, nest: claude.Agent{}}
	r.restoreSubs(back.Subs, back.SubsDone)
	h.write(filepath.Join(subDir, fmt.Sprintf("agent-%03d.jsonl", n-1)), sideLine(dir, "resumed"))
	h.write(filepath.Join(subDir, "agent-new.jsonl"), sideLine(dir, "new after restart"))
	evs := r.readSubagents(w, nil, false)
	var got []string
	for _, ev := range evs {
		if ev.Type == event.Assistant {
			got = append(got, ev.Content)
		}
	}
	if len(got) != 2 || !slices.Contains(got, "resumed") || !slices.Contains(got, "new after restart") {
		t.Errorf("after restart read %q, want only the resumed and the new subagent's lines", got)
	}
}

// sideToolLine is a subagent's response calling a tool, left unanswered.
func sideToolLine(id, tool string) string {
	return fmt.Sprintf(`{"type":"assistant","isSidechain":true,"agentId":"a1","sessionId":"s9","message":{"id":"sm-%s","model":"claude-haiku-4-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"tool_use","id":%q,"name":%q,"input":{}}]}}`, id, id, tool)
}
