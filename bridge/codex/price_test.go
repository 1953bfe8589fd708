package codex

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// TestCorpusTurnDollars parses each real rollout of the corpus with the
// built-in price table and checks every turn's dollars, worked out by hand
// from the scripted usage (testdata/corpus/README.md) and OpenAI's rates:
//
// Turn 1 is five responses: four of input 100, output 20, and the last of
// input 1200 (800 cached), output 300 (120 of it reasoning). Fresh input
// 4×100 + 400 = 800, cached 800, output 4×20 + 300 = 380 (reasoning inside).
// Turn 2 (the resumed session) is two responses of input 100, output 20.
func TestCorpusTurnDollars(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		dir  string
		want []float64
	}{
		// gpt-5.5 at $5 in, $0.50 cached, $30 out per million:
		// turn 1: 800×5 + 800×0.50 + 380×30 = 4000 + 400 + 11400 = 15800 µ$ → $0.0158
		//         (adding the 120 reasoning tokens again would make it $0.0194);
		// turn 2: 200×5 + 40×30 = 1000 + 1200 = 2200 µ$ → $0.0022.
		{"0.169.0", []float64{0.0158, 0.0022}},
		// gpt-5-codex at $1.25 in, $0.125 cached, $10 out:
		// turn 1: 800×1.25 + 800×0.125 + 380×10 = 1000 + 100 + 3800 = 4900 µ$ → $0.0049;
		// turn 2: 200×1.25 + 40×10 = 250 + 400 = 650 µ$ → $0.00065.
		{"0.47.0", []float64{0.0049, 0.00065}},
	} {
		t.Run(c.dir, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join("testdata", "corpus", c.dir, "*.jsonl"))
			if len(files) != 1 {
				t.Fatalf("corpus: %v", files)
			}
			data, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			p, _ := NewParser(nil)
			// As the engine prices Codex turns: the parser's usage is in the
			// table's terms already (usageOf), output including reasoning.
			tab := price.Embedded()
			p.Price = func(model string, u event.Usage) (float64, bool) {
				return tab.Cost(price.Request{Model: model, Usage: u})
			}
			var evs []event.Event
			for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				if evs, err = p.Line(line, evs); err != nil {
					t.Fatal(err)
				}
			}
			evs = p.Quiet(p.Flush(evs))
			var got []float64
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					if !e.CostKnown {
						t.Errorf("turn of %s has no price", e.Model)
					}
					got = append(got, e.CostUSD)
				}
			}
			if len(got) != len(c.want) {
				t.Fatalf("turn dollars %v, want %v", got, c.want)
			}
			for i := range got {
				if math.Abs(got[i]-c.want[i]) > 1e-12 {
					t.Errorf("turn %d: $%v, want $%v", i+1, got[i], c.want[i])
				}
			}
		})
	}
}
