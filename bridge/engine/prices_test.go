package engine

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// The user's prices.json reaches the live stream: a turn is priced with
// the overlaid table, not the built-in one.
func TestPricesFileReachesTheStream(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("priced")
	os.MkdirAll(h.state, 0o755)
	// Sonnet 4.5 at $100 a million input tokens and nothing else.
	over := `{"models":{"claude-sonnet-4-5":{"input":100,"output":0,"cache_write_5m":0,"cache_write_1h":0,"cache_read":0}}}`
	if err := os.WriteFile(filepath.Join(h.state, price.FileName), []byte(over), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, err := price.Load(h.state)
	if err != nil {
		t.Fatal(err)
	}
	const sid = "dddddddd-1111-4111-8111-0000000000d1"
	cwdOf[sid] = dir
	path := filepath.Join(proj, sid+".jsonl")
	h.write(path, prompt(sid, "go"))
	r := h.startWith(func(c *Config) { c.Prices = tab })
	id := r.waitWorkspace(t, dir)
	h.write(path, answer(sid, "m1", "done", "end_turn"), prompt(sid, "next"))
	evs := r.collect(t, id, 0, has(event.TurnComplete, ""))
	for _, e := range evs {
		if e.Type != event.TurnComplete {
			continue
		}
		// 10 input tokens × $100 / 1e6 = $0.001 (the built-in rate would give $0.000105).
		if !e.CostKnown || math.Abs(e.CostUSD-0.001) > 1e-12 {
			t.Errorf("turn cost %v (known %v), want 0.001 from prices.json", e.CostUSD, e.CostKnown)
		}
	}
}
