package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// TestEveryCorpusModelIsPriced prices every model name the corpora's real
// records hold, Claude Code's transcripts and Codex's rollouts alike, and
// fails on one the table does not know: as the corpora grow with new
// releases, the table has to keep up.
func TestEveryCorpusModelIsPriced(t *testing.T) {
	tab := price.Embedded()
	for _, c := range []struct {
		name, dir string
		model     func(line []byte) string
	}{
		{"claude", filepath.Join("testdata", "corpus"), claudeModel},
		{"codex", filepath.Join("..", "codex", "testdata", "corpus"), codexModel},
	} {
		t.Run(c.name, func(t *testing.T) {
			seen := corpusModels(t, c.dir, c.model)
			for _, m := range seen {
				if _, ok := tab.Lookup(m); !ok {
					t.Errorf("model %q in the corpus has no price", m)
				}
			}
			t.Logf("models priced: %s", strings.Join(seen, ", "))
		})
	}
}

// claudeModel is an assistant line's message.model.
func claudeModel(line []byte) string {
	var l struct {
		Message struct {
			Model string `json:"model"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return ""
	}
	return l.Message.Model
}

// codexModel is a turn_context's payload.model, the model Codex ran the
// turn with (the parser reads it from there).
func codexModel(line []byte) string {
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Model string `json:"model"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "turn_context" {
		return ""
	}
	return l.Payload.Model
}

// corpusModels is every model name model finds in the .jsonl files under
// dir, sorted; it fails the test when there is none.
func corpusModels(t *testing.T, dir string, model func([]byte) string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	seen := map[string]bool{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
		for sc.Scan() {
			if m := model(sc.Bytes()); m != "" {
				seen[m] = true
			}
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("read %s: %v", f, err)
		}
	}
	if len(seen) == 0 {
		t.Fatalf("the corpus in %s names no model", dir)
	}
	out := make([]string, 0, len(seen))
	for m := range seen {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// TestRealModelNamesByHand prices the models corpus (real Claude Code
// answered under the names real transcripts carry, each response 1000 in,
// 2000 5-minute writes, 10000 reads, 500 out) against rates written here
// from the published price pages, not read from the table.
func TestRealModelNamesByHand(t *testing.T) {
	type rates struct{ in, write, read, out float64 } // USD per million
	opus := rates{5, 6.25, 0.5, 25}
	sonnet45 := rates{3, 3.75, 0.3, 15}
	want := map[string]rates{
		"claude-opus-4.6": opus, "claude-opus-4-6": opus, "claude-opus-4-8": opus, "claude-opus-5": opus,
		"claude-haiku-4.5":           {1, 1.25, 0.1, 5},
		"claude-sonnet-4-5-1m":       sonnet45, // under 200k input: the short rate
		"claude-sonnet-4-5-20250929": sonnet45,
		"claude-sonnet-5":            {2, 2.5, 0.2, 10},
		"deepseek-v4-pro":            {1.74, 1.74, 0.145, 3.48},
		"deepseek-reasoner":          {0.14, 0.14, 0.028, 0.28}, // billed as V4-Flash
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "models", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("models corpus: %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var p Parser
	var evs []event.Event
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if evs, err = p.Line(line, evs); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	for _, e := range p.Flush(evs) {
		if e.Type != event.TurnComplete {
			continue
		}
		r, ok := want[e.Model]
		if !ok {
			t.Errorf("turn of %q: not a model of the corpus", e.Model)
			continue
		}
		seen[e.Model] = true
		usd := (1000*r.in + 2000*r.write + 10000*r.read + 500*r.out) / 1e6
		if !e.CostKnown || math.Abs(e.CostUSD-usd) > 1e-9 {
			t.Errorf("%s: $%v (known %v), want $%v", e.Model, e.CostUSD, e.CostKnown, usd)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("priced %d of the %d names: %v", len(seen), len(want), seen)
	}
}
