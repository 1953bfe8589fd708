package codex

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/valyala/fastjson"

	rollout "conductorbridge/bridge/codex"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
	"conductorbridge/bridge/usage/driver"
)

// Codex's history for bridge/usage: every rollout under the sessions
// folder, each a group of its own.
var _ driver.Lines = Agent{}

// UsageHome is Codex's home.
func (a Agent) UsageHome() string { return a.Home }

// UsageGroups lists every rollout-*.jsonl under the sessions folder.
func (a Agent) UsageGroups() ([]driver.Group, error) {
	if a.Home == "" {
		return nil, nil
	}
	var out []driver.Group
	err := filepath.WalkDir(rollout.SessionsDir(a.Home), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a missing or unreadable folder hides only itself
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), "rollout-") || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		out = append(out, driver.Group{Files: []string{path}, Infos: []fs.FileInfo{info}})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list codex rollouts: %w", err)
	}
	return out, nil
}

// OpenUsage reads one rollout with the streams' parser, and the newest
// plan limits it records.
func (a Agent) OpenUsage(g driver.Group, saved *driver.Saved, o driver.Options) (driver.Reader, error) {
	var state []byte
	r := &usageReader{keep: o.Keep}
	if saved != nil {
		state, r.limits = saved.State, slices.Clone(saved.Limits)
	}
	p, err := rollout.NewParser(state)
	if err != nil {
		return nil, err
	}
	p.Price = o.Prices.ModelCost
	if o.Keep {
		p.RecordCharges()
	}
	r.p = p
	return r, nil
}

// Reprice works out a turn's cost with prices from its responses; the
// parser names a turn by its model whatever its price, so that stays.
func (Agent) Reprice(t *driver.Turn, p driver.Pricing, prices *price.Table) {
	tc := rollout.TurnCharges{Model: p.Model, Charges: make([]price.Request, len(p.Charges))}
	for i, c := range p.Charges {
		tc.Charges[i] = c.Now
	}
	t.CostUSD, t.CostKnown = rollout.Reprice(tc, prices.ModelCost)
}

// usageReader reads one rollout for bridge/usage.
type usageReader struct {
	p      *rollout.Parser
	jp     fastjson.Parser
	limits []driver.Limit // the newest recorded
	keep   bool
}

var rateKey = []byte(`"rate_limits"`)

func (r *usageReader) Line(_ int, line []byte, out []event.Event) []event.Event {
	out, _ = r.p.Line(line, out) // a line that is not JSON is skipped, as the streams skip it
	if bytes.Contains(line, rateKey) {
		if l := rateLimits(&r.jp, line); len(l) > 0 {
			r.limits = l
		}
	}
	return out
}

func (r *usageReader) End(out []event.Event) []event.Event {
	out = r.p.Flush(out)
	out = r.p.Quiet(out)
	// History: a turn cut off still spent what it spent, as the streams count it.
	return r.p.Interrupt(out)
}

func (r *usageReader) Where() (string, string) { return r.p.Cwd(), r.p.ThreadID() }

func (r *usageReader) Charges() []driver.Pricing {
	if !r.keep {
		return nil
	}
	var out []driver.Pricing
	for _, tc := range r.p.TakeCharges() {
		ps := driver.Pricing{Model: tc.Model, Charges: make([]price.Charge, len(tc.Charges))}
		for i, c := range tc.Charges {
			ps.Charges[i].Now = c
		}
		out = append(out, ps)
	}
	return out
}

func (r *usageReader) Leftover() (event.Event, driver.Pricing, bool) {
	return event.Event{}, driver.Pricing{}, false
}

// Limits are the newest plan limits, with the session's folder.
func (r *usageReader) Limits() []driver.Limit {
	if len(r.limits) == 0 {
		return nil
	}
	ls := slices.Clone(r.limits)
	for i := range ls {
		ls[i].Workspace = r.p.Cwd()
	}
	return ls
}

func (r *usageReader) Save() ([]byte, [][]byte, error) {
	st, err := r.p.Save()
	return st, nil, err
}

// maxResetIn bounds resets_in_seconds (a weekly window resets within
// days): a larger one would overflow time.Duration.
const maxResetIn = 100 * 365 * 24 * 60 * 60

// writable returns t, or the zero time (unknown) when JSON cannot carry
// it: Time.MarshalJSON fails past the year 9999, and one such line made
// the whole report unwritable.
func writable(t time.Time) time.Time {
	if y := t.Year(); y < 1970 || y > 9999 {
		return time.Time{}
	}
	return t
}

// rateLimits reads the windows of one token_count line's rate_limits
// (event_msg token_count rate_limits). Releases differ: resets_at (unix
// seconds) or resets_in_seconds; either window may be null.
func rateLimits(jp *fastjson.Parser, line []byte) []driver.Limit {
	v, err := jp.ParseBytes(line)
	if err != nil {
		return nil
	}
	rl := v.Get("payload", "rate_limits")
	if rl == nil || rl.Type() != fastjson.TypeObject {
		return nil
	}
	seen, _ := time.Parse(time.RFC3339Nano, string(v.GetStringBytes("timestamp")))
	plan := string(rl.GetStringBytes("plan_type"))
	var out []driver.Limit
	for _, name := range []string{"primary", "secondary"} {
		w := rl.Get(name)
		if w == nil || w.Type() != fastjson.TypeObject || w.Get("used_percent") == nil {
			continue
		}
		used := w.GetFloat64("used_percent")
		if math.IsNaN(used) || math.IsInf(used, 0) {
			continue
		}
		l := driver.Limit{Agent: Agent{}.Name(), Name: name, UsedPercent: used,
			WindowMinutes: w.GetInt64("window_minutes"), Plan: plan, Seen: seen}
		switch at, in := w.GetInt64("resets_at"), w.GetInt64("resets_in_seconds"); {
		case at > 0:
			l.ResetsAt = writable(time.Unix(at, 0).UTC())
		case w.Get("resets_in_seconds") != nil && !seen.IsZero() && in >= 0 && in <= maxResetIn:
			l.ResetsAt = writable(seen.Add(time.Duration(in) * time.Second))
		}
		out = append(out, l)
	}
	return out
}
