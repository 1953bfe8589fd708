package agent_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/agent/conductor"
	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/agent/opencode"
	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/transcript"
	"conductorbridge/testkit/eventtest"
)

var update = flag.Bool("update", false, "rewrite the corpora's expected event lists")

// corpus is one agent package's recorded corpus: records a real binary
// wrote (each folder's README.md says how), read by the package's parser.
type corpus struct {
	agent string
	// globs find the record files, from this folder.
	globs []string
	// resume makes the package's parser from Save's state (nil: a new one).
	resume func(saved json.RawMessage) (agent.Parser, error)
	// uncut says the corpus holds no text long enough to be cut, so the
	// cut is checked but not seen at work (a gap to close by recording one).
	uncut bool
	// promptless says the record keeps no prompt (the Cursor SDK's store
	// keeps it in a checkpoint blob, not in the run's events): a turn
	// opens at its first event rather than at the person's message.
	promptless bool
}

// corpora is every agent package's corpus: a new agent joins the contract
// with one line here.
var corpora = []corpus{
	{agent: "claude", globs: []string{"../transcript/testdata/corpus/*/*.jsonl", "../transcript/testdata/corpus/*/*/subagents/*.jsonl"},
		resume: func(s json.RawMessage) (agent.Parser, error) { return transcript.NewParser(s) }},
	{agent: "codex", globs: []string{"../codex/testdata/corpus/*/*.jsonl"},
		resume: func(s json.RawMessage) (agent.Parser, error) { return codex.NewParser(s) }},
	// OpenCode's recorded run (opencode's TestRealSessionStreams,
	// OPENCODE_RECORD=1) has no output over the cut yet.
	{agent: "opencode", globs: []string{"opencode/testdata/*.jsonl"}, uncut: true,
		resume: func(s json.RawMessage) (agent.Parser, error) { return opencode.NewParser(s) }},
	{agent: "conductor", globs: []string{"conductor/testdata/corpus/*/rows.jsonl"},
		resume: func(s json.RawMessage) (agent.Parser, error) { return conductor.NewParser(s) }},
	// The Cursor SDK's store (cursor's testdata/README.md): the runs that
	// finished; those that failed spent nothing, so their turn_complete
	// has no usage (cursor's TestFailedRuns). No output over the cut yet.
	{agent: "cursor", globs: []string{"cursor/testdata/corpus/*.jsonl"}, uncut: true, promptless: true,
		resume: func(s json.RawMessage) (agent.Parser, error) { return cursor.NewParser(s) }},
}

// TestCorpusContract runs every agent package's corpus through the same
// checks: the events match the reviewed list beside each file
// (<file>.events; -update rewrites them, read the diff before committing);
// no line of a real record is rejected; the parser numbers no event (the
// stream does); each tool call has its own id and each result answers an
// earlier call under its name; no text passes the 500-character cut and
// the corpus does reach it; one turn_complete closes each turn and none is
// open at the end; and a restart after any line — the parser saved (in
// under 4 KiB), rebuilt from its state and fed the rest — gives the very
// same events.
func TestCorpusContract(t *testing.T) {
	for _, c := range corpora {
		t.Run(c.agent, func(t *testing.T) {
			var files []string
			for _, g := range c.globs {
				found, err := filepath.Glob(g)
				if err != nil {
					t.Fatal(err)
				}
				files = append(files, found...)
			}
			if len(files) == 0 {
				t.Fatalf("corpus missing: %v", files)
			}
			cut := false
			for _, path := range files {
				t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
					lines := recordLines(t, path)
					evs := parseWithRestart(t, c, lines, -1)
					checkGolden(t, path, evs)
					checkIDs(t, evs)
					cut = checkCut(t, evs) || cut
					checkTurns(t, evs, c.promptless)
					for k := 0; k <= len(lines); k++ {
						if got := parseWithRestart(t, c, lines, k); !reflect.DeepEqual(got, parseWithFlush(t, c, lines, k)) {
							t.Fatalf("a restart after line %d changes the events:\n%s", k, eventtest.Describe(got))
						}
					}
				})
			}
			if !cut && !c.uncut {
				t.Error("no text in the corpus reaches the 500-character cut: the check above proved nothing")
			}
		})
	}
}

// recordLines reads a record file's lines.
func recordLines(t *testing.T, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// feed gives p lines and flushes, as the engine's reader does when it has
// caught up.
func feed(t *testing.T, p agent.Parser, lines [][]byte, out []event.Event) []event.Event {
	t.Helper()
	var err error
	for _, line := range lines {
		if out, err = p.Line(line, out); err != nil {
			t.Fatalf("real record line rejected: %v\n%s", err, line)
		}
	}
	return p.Flush(out)
}

// parseWithFlush reads the whole file with the reader catching up after
// line k (k < 0: only at the end), then a quiet spell: the file is done.
func parseWithFlush(t *testing.T, c corpus, lines [][]byte, k int) []event.Event {
	t.Helper()
	p, err := c.resume(nil)
	if err != nil {
		t.Fatal(err)
	}
	var evs []event.Event
	if k >= 0 {
		evs = feed(t, p, lines[:k], evs)
		lines = lines[k:]
	}
	evs = p.Quiet(feed(t, p, lines, evs))
	if p.InTurn() {
		t.Error("a turn is still open at the end of a finished record")
	}
	return evs
}

// maxState bounds a parser's saved state, which the journal writes with
// every batch of events (agent.Parser.Save: O(1) in the length of a turn).
const maxState = 4096

// parseWithRestart is parseWithFlush with the bridge restarting after
// line k: the parser's saved state (as the journal keeps it) is all the
// new one starts from.
func parseWithRestart(t *testing.T, c corpus, lines [][]byte, k int) []event.Event {
	t.Helper()
	if k < 0 {
		return parseWithFlush(t, c, lines, k)
	}
	p, err := c.resume(nil)
	if err != nil {
		t.Fatal(err)
	}
	evs := feed(t, p, lines[:k], nil)
	saved, err := p.Save()
	if err != nil {
		t.Fatalf("save after line %d: %v", k, err)
	}
	if len(saved) > maxState {
		t.Errorf("the state saved after line %d is %d bytes, over %d: it must not grow with the turn", k, len(saved), maxState)
	}
	if p, err = c.resume(append(json.RawMessage(nil), saved...)); err != nil {
		t.Fatalf("resume after line %d: %v", k, err)
	}
	return p.Quiet(feed(t, p, lines[k:], evs))
}

func checkGolden(t *testing.T, path string, evs []event.Event) {
	t.Helper()
	got := eventtest.Describe(evs)
	golden := path + ".events"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("no expected list (run go test -run TestCorpusContract -update and review it): %v", err)
	}
	if got != string(want) {
		t.Errorf("events differ from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
}

// checkIDs: the stream numbers events, not the parser; a tool call's id is
// its own, and a result names a call made before it, under its name.
func checkIDs(t *testing.T, evs []event.Event) {
	t.Helper()
	calls := map[string]string{}
	for i, e := range evs {
		if e.ID != 0 {
			t.Errorf("event %d carries id %d: the stream assigns ids", i, e.ID)
		}
		switch e.Type {
		case event.ToolUse:
			if e.ToolUseID == "" {
				t.Errorf("event %d: tool call %s without an id", i, e.Name)
			} else if _, dup := calls[e.ToolUseID]; dup {
				t.Errorf("event %d: tool call id %s used twice", i, e.ToolUseID)
			}
			calls[e.ToolUseID] = e.Name
		case event.ToolResult:
			name, ok := calls[e.ToolUseID]
			if !ok {
				t.Errorf("event %d: result for %q, a call not made before it", i, e.ToolUseID)
			} else if name != e.Name {
				t.Errorf("event %d: result of %s named %s", i, name, e.Name)
			}
		}
	}
}

// checkCut: no text is longer than event.MaxText characters, and one that
// was cut says so with exactly that many. It reports whether any was cut.
func checkCut(t *testing.T, evs []event.Event) bool {
	t.Helper()
	cut := false
	for i, e := range evs {
		for _, f := range []struct {
			text      string
			truncated bool
		}{{e.Content, e.Truncated}, {e.Input, e.TruncIn}, {e.Output, e.TruncOut}} {
			n := utf8.RuneCountInString(f.text)
			if n > event.MaxText {
				t.Errorf("event %d (%s): %d characters, over the %d cut", i, e.Type, n, event.MaxText)
			}
			if f.truncated && n == event.MaxText {
				cut = true
			}
		}
	}
	return cut
}

// checkTurns: a prompt opens a turn (a message typed while one is open
// joins it), one turn_complete with the turn's usage closes it, and none
// is open at the end.
// Subagents' and system messages open no turn of the session's. A
// promptless record's turn opens at its first event.
func checkTurns(t *testing.T, evs []event.Event, promptless bool) {
	t.Helper()
	open := false
	for i, e := range evs {
		switch {
		case e.Type == event.User && !e.Sidechain && !e.System,
			promptless && e.Type != event.TurnComplete && !e.Sidechain:
			open = true
		case e.Type == event.TurnComplete:
			if e.Usage.OutputTokens == 0 {
				t.Errorf("event %d: a turn_complete without the turn's usage", i)
			}
			if !open {
				t.Errorf("event %d: a turn_complete with no turn open (two for one turn?)", i)
			}
			open = false
		}
	}
	if open {
		t.Error("the last turn never completes")
	}
}
