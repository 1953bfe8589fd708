package usage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestCacheReadsOnlyWhatChanged: a second Read with a cache gives the same
// history; a subagent file that grew is read again, and a session that
// was removed is gone from the next report.
func TestCacheReadsOnlyWhatChanged(t *testing.T) {
	projects, codexHome := corpusHome(t)
	src := Source{Formats: agentsAt(projects, codexHome), Cache: &Cache{}}
	first, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	again, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Turns) != len(first.Turns) || again.Bytes != first.Bytes || len(src.Cache.m) != 5 {
		t.Fatalf("cached read: %d turns %d bytes (%d groups cached), first %d turns %d bytes",
			len(again.Turns), again.Bytes, len(src.Cache.m), len(first.Turns), first.Bytes)
	}
	// The 2.1 subagent answers once more, after the session's last turn:
	// its usage (in 100) is spent, so it must show.
	lateSubagentAnswer(t, projects)
	os.RemoveAll(filepath.Join(projects, "-tmp-demo-1-0-128"))
	after, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	in := func(h *History) (n int64) {
		for _, t := range h.Turns {
			n += t.Usage.InputTokens
		}
		return n
	}
	if got, want := in(after), in(first)+100-2300; got != want {
		t.Errorf("after the change: input %d, want %d (+100 late subagent, -2300 removed session)", got, want)
	}
	if len(src.Cache.m) != 4 {
		t.Errorf("%d groups cached, want 4", len(src.Cache.m))
	}
}

// lateSubagentAnswer appends to the corpus's 2.1 subagent file one more
// answer (100 input tokens), dated after every line before.
func lateSubagentAnswer(t *testing.T, projects string) {
	t.Helper()
	sub, _ := filepath.Glob(filepath.Join(projects, "-tmp-demo-2-1-328", "*", "subagents", "*.jsonl"))
	if len(sub) == 0 {
		t.Fatal("no 2.1 subagent file in the corpus")
	}
	f, err := os.OpenFile(sub[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(`{"type":"assistant","isSidechain":true,"sessionId":"cdde5e9d-5ddb-4c57-9334-6b05a2e72297","timestamp":"2026-12-30T00:00:00Z",` +
		`"requestId":"req_late","message":{"id":"msg_late","model":"claude-opus-5-5","role":"assistant","content":[],"usage":{"input_tokens":100,"output_tokens":1}}}` + "\n"); err != nil {
		t.Fatal(err)
	}
}
