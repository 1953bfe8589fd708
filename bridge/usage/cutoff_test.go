package usage

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// A record cut off mid-turn (its agent was killed) counts in `usage` as the
// streams count it when they end the turn of a gone agent (Interrupt): the
// real Codex rollouts of the corpus, 0.47 and 0.169, cut after every line,
// each cut mid-turn ending interrupted in the streams.
func TestCutOffTurnsCountAsTheStreamsEndThem(t *testing.T) {
	prices := price.Default()
	for _, v := range []string{"0.47.0", "0.169.0"} {
		files, _ := filepath.Glob(filepath.Join("../codex/testdata/corpus", v, "rollout-*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("corpus %s: %v", v, files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		interrupted := 0
		for cut := 1; cut <= len(lines); cut++ {
			// The streams: the lines read, then the agent gone.
			p := &codex.Parser{Price: prices.ModelCost}
			var evs []event.Event
			for _, l := range lines[:cut] {
				evs, _ = p.Line(bytes.TrimSpace(l), evs)
			}
			evs = p.Interrupt(p.Flush(evs))
			var want Row
			for _, e := range evs {
				if e.Type == event.TurnComplete {
					want.Turns++
					want.Usage = want.Usage.Add(e.Usage)
					want.CostUSD += e.CostUSD
					if e.Interrupted {
						interrupted++
					}
				}
			}
			home := t.TempDir()
			day := filepath.Join(codex.SessionsDir(home), "2026", "12", "02")
			os.MkdirAll(day, 0o755)
			if err := os.WriteFile(filepath.Join(day, filepath.Base(files[0])), bytes.Join(lines[:cut], nil), 0o644); err != nil {
				t.Fatal(err)
			}
			h, err := Source{Formats: agentsAt("", home), Prices: prices, Workers: 1}.Read(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			rep := summarize(t, h, Query{By: "day"})
			got := rep.Total
			if got.Turns != want.Turns || got.Usage != want.Usage || math.Abs(got.CostUSD-want.CostUSD) > 1e-9 {
				t.Errorf("%s cut after line %d: usage %d turns %+v $%.6f; the streams %d turns %+v $%.6f",
					v, cut, got.Turns, got.Usage, got.CostUSD, want.Turns, want.Usage, want.CostUSD)
			}
		}
		if interrupted == 0 {
			t.Errorf("%s: no cut ended a turn interrupted", v)
		}
	}
}
