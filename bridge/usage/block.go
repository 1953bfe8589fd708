package usage

import (
	"cmp"
	"slices"
	"time"

	"conductorbridge/bridge/event"
)

// BlockLength is the window subscription plans meter use in: 5 hours from
// the first message, its start rounded down to the hour (as Anthropic's
// plans count it, and as ccusage shows it).
const BlockLength = 5 * time.Hour

// Block is one 5-hour window of one agent's use.
type Block struct {
	Agent       string      `json:"agent"`
	Start       time.Time   `json:"start"`
	End         time.Time   `json:"end"`
	Active      bool        `json:"active"`
	LeftSeconds int64       `json:"left_seconds,omitempty"` // time left in the window, when active
	Turns       int         `json:"turns"`
	Usage       event.Usage `json:"usage"`
	TotalTokens int64       `json:"total_tokens"`
	CostUSD     float64     `json:"cost_usd"`
	CostKnown   bool        `json:"cost_known"`
	Unpriced    []string    `json:"unpriced_models,omitempty"`
}

// Blocks cuts each agent's turns into 5-hour blocks: a block starts at
// the hour of the first turn that falls after the previous block ended.
// The plans of different agents are metered apart.
func Blocks(turns []Turn) []Block { return blocksIn(turns, nil) }

// blocksIn is Blocks sorting in spare, where it is long enough.
func blocksIn(turns []Turn, spare []place) []Block {
	// Their places are sorted, not the turns (large): those that start at
	// once stay in the order they came. Agents are few: each is its rank.
	var agents []string
	for i := range turns {
		if !slices.Contains(agents, turns[i].Agent) {
			agents = append(agents, turns[i].Agent)
		}
	}
	slices.Sort(agents)
	order := spare
	if len(order) < len(turns) {
		order = make([]place, len(turns))
	}
	order = order[:len(turns)]
	exact := true
	for i := range turns {
		t := &turns[i]
		who := 0
		for agents[who] != t.Agent {
			who++
		}
		exact = exact && nanoSafe(t.Start)
		order[i] = place{at: t.Start.UnixNano(), i: int32(i), tag: int32(who)}
	}
	if exact {
		sortByTagAt(order, len(agents))
	} else {
		slices.SortFunc(order, func(a, b place) int {
			return cmp.Or(cmp.Compare(a.tag, b.tag), turns[a.i].Start.Compare(turns[b.i].Start), cmp.Compare(a.i, b.i))
		})
	}
	var b blocker
	for _, p := range order {
		b.add(&turns[p.i])
	}
	return b.done()
}

// blocker cuts turns, given by agent and start, into blocks.
type blocker struct {
	out []Block
	cur *Block
}

func (b *blocker) add(t *Turn) {
	if t.Start.IsZero() {
		return
	}
	cur := b.cur
	if cur == nil || cur.Agent != t.Agent || !t.Start.Before(cur.End) {
		start := t.Start.UTC().Truncate(time.Hour)
		b.out = append(b.out, Block{Agent: t.Agent, Start: start, End: start.Add(BlockLength), CostKnown: true})
		cur = &b.out[len(b.out)-1]
		b.cur = cur
	}
	cur.Turns++
	cur.Usage = cur.Usage.Add(t.Usage)
	cur.TotalTokens += Tokens(t.Usage)
	cur.CostUSD += t.CostUSD
	if !t.CostKnown {
		cur.CostKnown = false
		if !slices.Contains(cur.Unpriced, t.Model) {
			cur.Unpriced = append(cur.Unpriced, t.Model)
		}
	}
}

// done is the blocks by start, then agent.
func (b *blocker) done() []Block {
	out := b.out
	slices.SortStableFunc(out, func(a, b Block) int { return cmp.Or(a.Start.Compare(b.Start), cmp.Compare(a.Agent, b.Agent)) })
	return out
}

// current returns the blocks still open at now, with the time they have left.
func current(blocks []Block, now time.Time) []Block {
	out := []Block{}
	for _, b := range blocks {
		if !now.Before(b.Start) && now.Before(b.End) {
			b.Active, b.LeftSeconds = true, int64(b.End.Sub(now)/time.Second)
			out = append(out, b)
		}
	}
	return out
}

// row shows a block as a report row, keyed by its start.
func (b Block) row(loc *time.Location) Row {
	return Row{Key: b.Start.In(loc).Format("2006-01-02 15:04"), Agent: b.Agent, Start: b.Start, End: b.End,
		Turns: b.Turns, Usage: b.Usage, TotalTokens: b.TotalTokens, CostUSD: b.CostUSD, CostKnown: b.CostKnown, Unpriced: b.Unpriced}
}
