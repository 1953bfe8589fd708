package conductor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"

	"conductorbridge/bridge/event"
)

// TestCorpus reads the recorded rows (testdata/corpus) and checks what
// every agent's record must give: no row rejected, the cut reached and
// never passed, one turn_complete per turn with its cost known, none
// left open; and a restart after any row — the parser rebuilt from its
// saved state alone, under 4 KiB — gives the very same events.
func TestCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/corpus/*/rows.jsonl")
	if err != nil || len(files) < 2 {
		t.Fatalf("corpus missing: %v %v", files, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
			want := parseRestarting(t, lines, -1)
			prompts, cut := 0, false
			for _, e := range want {
				switch e.Type {
				case event.User:
					prompts++
				case event.TurnComplete:
					if e.Usage.OutputTokens == 0 {
						t.Errorf("turn without its usage: %s", brief(e))
					}
				}
				for _, s := range []string{e.Content, e.Input, e.Output} {
					if n := utf8.RuneCountInString(s); n > event.MaxText {
						t.Errorf("%s: %d characters, over the cut", e.Type, n)
					}
				}
				cut = cut || (e.TruncOut && utf8.RuneCountInString(e.Output) == event.MaxText)
			}
			if n := count(want, event.TurnComplete); n != prompts || n == 0 {
				t.Errorf("%d turn_complete for %d prompts:\n%s", n, prompts, describe(want))
			}
			if !cut {
				t.Error("no tool output reaches the cut")
			}
			for k := 0; k <= len(lines); k++ {
				if got := parseRestarting(t, lines, k); !reflect.DeepEqual(got, want) {
					t.Fatalf("a restart after row %d changes the events:\n%s\nwant\n%s", k, describe(got), describe(want))
				}
			}
		})
	}
}

// parseRestarting parses lines, the bridge restarting after line k (k <
// 0: never): the new parser has only the old one's saved state.
func parseRestarting(t *testing.T, lines [][]byte, k int) []event.Event {
	t.Helper()
	p := &Parser{}
	var evs []event.Event
	for i, line := range lines {
		if i == k {
			saved, err := p.Save()
			if err != nil {
				t.Fatal(err)
			}
			if len(saved) > 4096 {
				t.Errorf("state after row %d is %d bytes", k, len(saved))
			}
			if p, err = NewParser(append(json.RawMessage(nil), saved...)); err != nil {
				t.Fatal(err)
			}
		}
		var err error
		if evs, err = p.Line(line, evs); err != nil {
			t.Fatalf("row %d rejected: %v", i+1, err)
		}
	}
	if p.InTurn() {
		t.Error("a turn is still open at the end of the record")
	}
	return evs
}
