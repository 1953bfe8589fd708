package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

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
