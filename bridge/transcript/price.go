package transcript

import (
	"strings"

	"conductorbridge/bridge/event"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input, Output, CacheWrite, CacheRead float64
}

// prices is the built-in table for transcripts that carry no cost of their
// own (older Claude Code versions). Keys are model-name prefixes; the
// longest matching prefix wins, so "claude-opus-4-1" beats "claude-opus-4".
// Cache writes are priced at the 5-minute rate (1.25 × input), which is
// what Claude Code uses.
var prices = map[string]Price{
	"claude-opus-4-6":   {5, 25, 6.25, 0.50},
	"claude-opus-4-5":   {5, 25, 6.25, 0.50},
	"claude-opus-4-1":   {15, 75, 18.75, 1.50},
	"claude-opus-4":     {15, 75, 18.75, 1.50},
	"claude-sonnet-4":   {3, 15, 3.75, 0.30}, // 4, 4.5, 4.6
	"claude-haiku-4":    {1, 5, 1.25, 0.10},  // 4.5
	"claude-3-7-sonnet": {3, 15, 3.75, 0.30},
	"claude-3-5-sonnet": {3, 15, 3.75, 0.30},
	"claude-3-5-haiku":  {0.80, 4, 1, 0.08},
	"claude-3-opus":     {15, 75, 18.75, 1.50},
	"claude-3-haiku":    {0.25, 1.25, 0.30, 0.03},
}

// familyPrices price a model the table does not know yet by its family, at
// that family's newest rate — a better guess than nothing.
var familyPrices = []struct {
	family string
	price  Price
}{
	{"opus", Price{5, 25, 6.25, 0.50}},
	{"sonnet", Price{3, 15, 3.75, 0.30}},
	{"haiku", Price{1, 5, 1.25, 0.10}},
}

// PriceOf returns the price of a model and whether it is known.
func PriceOf(model string) (Price, bool) {
	m := strings.ToLower(model)
	m = strings.TrimPrefix(m, "anthropic/")
	best, bestLen := Price{}, 0
	for prefix, p := range prices {
		if strings.HasPrefix(m, prefix) && len(prefix) > bestLen {
			best, bestLen = p, len(prefix)
		}
	}
	if bestLen > 0 {
		return best, true
	}
	for _, f := range familyPrices {
		if strings.Contains(m, f.family) {
			return f.price, true
		}
	}
	return Price{}, false
}

// Cost prices a usage for a model in US dollars; 0 for an unknown model.
func Cost(model string, u event.Usage) float64 {
	p, _ := PriceOf(model)
	return (float64(u.InputTokens)*p.Input +
		float64(u.OutputTokens)*p.Output +
		float64(u.CacheCreationTokens)*p.CacheWrite +
		float64(u.CacheReadTokens)*p.CacheRead) / 1e6
}
