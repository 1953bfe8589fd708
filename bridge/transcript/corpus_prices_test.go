package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/price"
)

// TestEveryCorpusModelIsPriced prices every model name the corpus's real
// transcripts hold and fails on one the table does not know: as the corpus
// grows with new Claude Code releases, the table has to keep up.
func TestEveryCorpusModelIsPriced(t *testing.T) {
	tab := price.Embedded()
	var files []string
	err := filepath.WalkDir(filepath.Join("testdata", "corpus"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus: %v", err)
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
			var line struct {
				Message struct {
					Model string `json:"model"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message.Model != "" {
				seen[line.Message.Model] = true
			}
		}
		fh.Close()
	}
	if len(seen) == 0 {
		t.Fatal("the corpus names no model")
	}
	for m := range seen {
		if _, ok := tab.Lookup(m); !ok {
			t.Errorf("model %q in the corpus has no price", m)
		}
	}
	t.Logf("models priced: %s", strings.Join(keys(seen), ", "))
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
