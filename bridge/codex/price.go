package codex

import (
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// TablePrice prices each response from the bridge's price table. The
// parser's usage is already in the table's terms (usageOf): input is the
// fresh part, cached input is a cache read, and output includes the
// reasoning tokens, which OpenAI bills as output and which are therefore
// not priced a second time.
func TablePrice(t *price.Table) PriceFunc {
	return func(model string, u event.Usage) (float64, bool) {
		return t.Cost(price.Request{Model: model, Usage: u})
	}
}
