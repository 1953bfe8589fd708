package usage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestALaterReadKnowsTheTimesOfLinesTakenWithoutThem: a read from the
// start takes the lines of a session's file left last in the merge (its
// subagent's ended first) without reading their times, and says so in
// its mark; a read going on from there reads those times first. Here one
// of those lines says a later time than the last line (a clock put back),
// and the subagent then answers at a time between the two: merged from
// the start, that answer comes before the later line, so the read must
// not go on from the mark, and the report must be what a read without
// the cache gives. An answer after every line still goes on from it.
func TestALaterReadKnowsTheTimesOfLinesTakenWithoutThem(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	const sid = "00000001-1111-4111-8111-000000000001"
	const agent = "a0000001-2222-4222-8222-000000000001"
	dir := filepath.Join(projects, "-tmp-w")
	main := filepath.Join(dir, sid+".jsonl")
	sub := filepath.Join(dir, sid, "subagents", "agent-"+agent[:8]+".jsonl")
	// The synthetic sessions start at 2026-11-01 09:00 and go on a few
	// seconds a line: the subagent's file ends long before the session's.
	writeSynthFile(t, main, sid, "/tmp/w", 1, 200<<10)
	writeSynthFile(t, sub, agent, "/tmp/w", 2, 8<<10)
	appendLines(t, main,
		`{"type":"user","sessionId":"`+sid+`","cwd":"/tmp/w","timestamp":"2026-11-05T00:00:00.000Z","uuid":"late-1","message":{"role":"user","content":"one more thing"}}`,
		`{"type":"assistant","sessionId":"`+sid+`","cwd":"/tmp/w","timestamp":"2026-11-05T00:00:02.000Z","uuid":"late-2","requestId":"req_late","message":{"id":"msg_late","model":"claude-sonnet-4-5-20250929","role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"done"}],"usage":{"input_tokens":7,"output_tokens":3}}}`,
		`{"type":"system","sessionId":"`+sid+`","cwd":"/tmp/w","timestamp":"2026-11-03T00:00:00.000Z","uuid":"late-3","subtype":"informational","content":"the clock was put back"}`)

	cache := &Cache{Path: filepath.Join(t.TempDir(), CacheFile), share: 1}
	src := Source{Formats: agentsAt(projects, ""), Cache: cache}
	uncached := Source{Formats: agentsAt(projects, "")}
	cold, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, err := uncached.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sameReports(t, "cold", want, cold)
	if mk := markOf(t, cache, main); mk.Untimed == 0 {
		t.Fatalf("the cold read says it read the time of every line of %s (Untimed 0): the lines after the subagent's last were to be taken without", main)
	}

	// Between the clock put back (11-03) and the later line (11-05).
	appendLines(t, sub, `{"type":"assistant","isSidechain":true,"sessionId":"`+sid+`","agentId":"`+agent[:8]+`","timestamp":"2026-11-04T00:00:00.000Z","uuid":"sub-late","requestId":"req_sub_mid","message":{"id":"msg_sub_mid","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[],"usage":{"input_tokens":100,"output_tokens":1}}}`)
	resumed := cache.resumed.Load()
	got, err := (Source{Formats: agentsAt(projects, ""), Cache: cache}).Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want, err = uncached.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	sameReports(t, "a subagent answer dated before a line taken without its time", want, got)
	if n := cache.resumed.Load() - resumed; n != 0 {
		t.Errorf("%d reads went on from where they stopped; the new answer comes before a line read, so none may", n)
	}

	// After every line: the read goes on.
	appendLines(t, sub, `{"type":"assistant","isSidechain":true,"sessionId":"`+sid+`","agentId":"`+agent[:8]+`","timestamp":"2026-11-06T00:00:00.000Z","uuid":"sub-later","requestId":"req_sub_late","message":{"id":"msg_sub_late","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[],"usage":{"input_tokens":200,"output_tokens":1}}}`)
	resumed = cache.resumed.Load()
	if got, err = (Source{Formats: agentsAt(projects, ""), Cache: cache}).Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want, err = uncached.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	sameReports(t, "a subagent answer after every line", want, got)
	if n := cache.resumed.Load() - resumed; n != 1 {
		t.Errorf("%d reads went on from where they stopped, want the session's 1", n)
	}
}

// appendLines appends lines to the file at path.
func appendLines(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// markOf is where the cache says the last read of path stopped.
func markOf(t *testing.T, c *Cache, path string) mark {
	t.Helper()
	for _, e := range c.m {
		snap := c.snapOf(e)
		if snap == nil {
			continue
		}
		for _, mk := range snap.Files {
			if mk.Path == path {
				return mk
			}
		}
	}
	t.Fatalf("no mark for %s in the cache", path)
	return mark{}
}

// TestALoneFileReadOnKeepsItsTimesUnknown: a session of one file is read
// from the start without its lines' times (no order to keep), and a read
// going on from its mark must not take the times the mark has for known.
// Its last answer came with no turn open, so the report dates it by the
// latest line with a time; a line with none is then appended: the read
// cannot tell that time from what it read, and must read the file again.
func TestALoneFileReadOnKeepsItsTimesUnknown(t *testing.T) {
	projects := filepath.Join(t.TempDir(), "projects")
	const sid = "00000002-1111-4111-8111-000000000002"
	main := filepath.Join(projects, "-tmp-w", sid+".jsonl")
	writeSynthFile(t, main, sid, "/tmp/w", 3, 64<<10)
	// A subagent's answer relayed after the last turn ended, none open:
	// counted in the next turn, or with none, dated by the latest line.
	appendLines(t, main, `{"type":"assistant","isSidechain":true,"sessionId":"`+sid+`","cwd":"/tmp/w","timestamp":"2026-11-05T00:00:02.000Z","uuid":"bg-1","requestId":"req_bg","message":{"id":"msg_bg","model":"claude-sonnet-4-5-20250929","role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"background work done"}],"usage":{"input_tokens":7,"output_tokens":3}}}`)
	cache := &Cache{Path: filepath.Join(t.TempDir(), CacheFile), share: 1}
	uncached := Source{Formats: agentsAt(projects, "")}
	for i, step := range []string{"cold", "a line with no time appended"} {
		if i > 0 {
			appendLines(t, main, `{"type":"summary","summary":"more work","leafUuid":"bg-1"}`)
		}
		got, err := (Source{Formats: agentsAt(projects, ""), Cache: cache}).Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want, err := uncached.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sameReports(t, step, want, got)
	}
}
