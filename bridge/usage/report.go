package usage

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"conductorbridge/bridge/event"
)

// Views a report can take (--by).
var Views = []string{"day", "week", "month", "session", "workspace", "model", "block"}

// Query is what a report sums and how.
type Query struct {
	By           string         // one of Views ("": day)
	Since, Until time.Time      // first and last day counted, in Loc (zero: open)
	Loc          *time.Location // days are this zone's (nil: Local)
	Now          time.Time      // for the current block (zero: time.Now)
}

// DateLayout is how --since and --until are written.
const DateLayout = "2006-01-02"

// ParseDate reads a --since/--until date: 2026-12-03 or 20261203.
func ParseDate(s string, loc *time.Location) (time.Time, error) {
	for _, layout := range []string{DateLayout, "20060102"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad date %q: want YYYY-MM-DD", s)
}

// ParseQuery reads a report's parameters as the usage command and
// GET /api/usage take them: a view, first and last day, a time zone name
// (all optional).
func ParseQuery(by, since, until, tz string) (Query, error) {
	q := Query{By: by, Loc: time.Local}
	if by != "" && !slices.Contains(Views, by) {
		return q, fmt.Errorf("bad view %q: want one of %v", by, Views)
	}
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return q, fmt.Errorf("bad time zone %q: %w", tz, err)
		}
		q.Loc = loc
	}
	var err error
	if since != "" {
		if q.Since, err = ParseDate(since, q.Loc); err != nil {
			return q, err
		}
	}
	if until != "" {
		if q.Until, err = ParseDate(until, q.Loc); err != nil {
			return q, err
		}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Since.After(q.Until) {
		return q, fmt.Errorf("--since %s is after --until %s: nothing could be counted", since, until)
	}
	return q, nil
}

// Row is what one key (a day, a session, a model, …) spent. CostUSD sums
// the turns whose price is known; CostKnown is false if some turn's is
// not (its model is in Unpriced), so the figure is a lower bound.
type Row struct {
	Key             string      `json:"key"`
	Agent           string      `json:"agent,omitempty"`     // session and block rows
	Workspace       string      `json:"workspace,omitempty"` // session rows
	Start           time.Time   `json:"start,omitzero"`      // first turn (block rows: the block's start)
	End             time.Time   `json:"end,omitzero"`        // last turn (block rows: the block's end)
	Turns           int         `json:"turns"`
	Usage           event.Usage `json:"usage"`
	TotalTokens     int64       `json:"total_tokens"`
	CostUSD         float64     `json:"cost_usd"`
	CostKnown       bool        `json:"cost_known"`
	SubagentUsage   event.Usage `json:"subagent_usage,omitzero"`
	SubagentCostUSD float64     `json:"subagent_cost_usd,omitempty"`
	Models          []string    `json:"models,omitempty"`
	Unpriced        []string    `json:"unpriced_models,omitempty"`
	// Workspaces splits a day's (week's, month's) cost by workspace: the
	// usage page stacks its bars from it.
	Workspaces []Part `json:"workspaces,omitempty"`
}

// Part is one workspace's share of a row.
type Part struct {
	Workspace   string  `json:"workspace"`
	CostUSD     float64 `json:"cost_usd"`
	TotalTokens int64   `json:"total_tokens"`
}

// Report is a usage report.
type Report struct {
	By       string  `json:"by"`
	Since    string  `json:"since,omitempty"`
	Until    string  `json:"until,omitempty"`
	TimeZone string  `json:"time_zone"`
	Rows     []Row   `json:"rows"`
	Total    Row     `json:"total"`
	Blocks   []Block `json:"current_blocks"` // each agent's 5-hour block still open now
	Limits   []Limit `json:"limits"`         // the newest plan limits an agent recorded
	// Scope is "paired" when the asker (a browser) sees only the
	// workspaces paired with it, "" when it sees everything.
	Scope  string   `json:"scope,omitempty"`
	Files  int      `json:"files"`
	Bytes  int64    `json:"bytes"`
	Errors []string `json:"errors,omitempty"`
}

// Tokens is every token a usage counts (reasoning is part of output).
func Tokens(u event.Usage) int64 {
	return u.InputTokens + u.OutputTokens + u.CacheCreationTokens + u.CacheReadTokens
}

func (r *Row) add(t *Turn) {
	if r.Turns == 0 {
		r.CostKnown = true
		r.Start, r.End = t.End, t.End
	}
	r.Turns++
	r.Usage = r.Usage.Add(t.Usage)
	r.TotalTokens += Tokens(t.Usage)
	r.CostUSD += t.CostUSD
	r.SubagentUsage = r.SubagentUsage.Add(t.SubUsage)
	r.SubagentCostUSD += t.SubCost
	if !t.CostKnown {
		r.CostKnown = false
		if !slices.Contains(r.Unpriced, t.Model) {
			r.Unpriced = append(r.Unpriced, t.Model)
		}
	}
	if t.Model != "" && !slices.Contains(r.Models, t.Model) {
		r.Models = append(r.Models, t.Model)
	}
	if t.End.Before(r.Start) {
		r.Start = t.End
	}
	if t.End.After(r.End) {
		r.End = t.End
	}
}

// Summarize sums h's turns as q asks.
func Summarize(h *History, q Query) (*Report, error) {
	by := cmp.Or(q.By, "day")
	if !slices.Contains(Views, by) {
		return nil, fmt.Errorf("bad view %q: want one of %v", q.By, Views)
	}
	loc := q.Loc
	if loc == nil {
		loc = time.Local
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	rep := &Report{By: by, TimeZone: loc.String(), Rows: []Row{}, Limits: h.Limits, Files: h.Files, Bytes: h.Bytes, Errors: h.Errors}
	if rep.Limits == nil {
		rep.Limits = []Limit{}
	}
	in := inRangeOf(q.Since, q.Until, loc)
	if !q.Since.IsZero() {
		rep.Since = q.Since.Format(DateLayout)
	}
	if !q.Until.IsZero() {
		rep.Until = q.Until.Format(DateLayout)
	}
	var blocks []Block
	if h.packed != nil && by != "block" {
		// Only the open blocks are shown.
		var ok bool
		if rep.Blocks, ok = h.packed.blocksAt(now); !ok {
			blocks = h.packed.blocks()
		}
	} else if h.packed != nil {
		blocks = h.packed.blocks()
	} else {
		var spare []place
		if p := h.spare.Swap(nil); p != nil {
			spare = *p
		}
		blocks = blocksIn(h.Turns, spare)
	}
	if rep.Blocks == nil {
		rep.Blocks = current(blocks, now)
	}
	rep.Total.Key = "total"
	if by == "block" {
		for _, b := range blocks {
			if in(b.Start) {
				rep.Rows = append(rep.Rows, b.row(loc))
				rep.Total.merge(b.row(loc))
			}
		}
		return rep, nil
	}
	rows := map[string]*Row{}
	parts := map[string]map[string]*Part{}
	keys := keyer{by: by, loc: loc}
	// Turns come in time order: most go to the row (and the workspace's
	// part of it) the last one went to, looked up once.
	var last struct {
		key  string
		row  *Row
		ws   string
		part *Part
	}
	add := func(t *Turn) {
		if !in(t.End) {
			return
		}
		rep.Total.add(t)
		key := keys.of(t)
		r := last.row
		if r == nil || key != last.key {
			if r = rows[key]; r == nil {
				r = &Row{Key: key}
				if by == "session" {
					r.Agent, r.Workspace = t.Agent, t.Workspace
				}
				rows[key] = r
			}
			last.key, last.row, last.part = key, r, nil
		}
		r.add(t)
		if by == "day" || by == "week" || by == "month" {
			p := last.part
			if p == nil || t.Workspace != last.ws {
				ps := parts[key]
				if ps == nil {
					ps = map[string]*Part{}
					parts[key] = ps
				}
				if p = ps[t.Workspace]; p == nil {
					p = &Part{Workspace: t.Workspace}
					ps[t.Workspace] = p
				}
				last.ws, last.part = t.Workspace, p
			}
			p.CostUSD += t.CostUSD
			p.TotalTokens += Tokens(t.Usage)
		}
	}
	if h.packed != nil {
		h.packed.each(add)
	} else {
		for i := range h.Turns {
			add(&h.Turns[i])
		}
	}
	for key, r := range rows {
		for _, p := range parts[key] {
			r.Workspaces = append(r.Workspaces, *p)
		}
		slices.SortFunc(r.Workspaces, func(a, b Part) int {
			return cmp.Or(cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(a.Workspace, b.Workspace))
		})
		rep.Rows = append(rep.Rows, *r)
	}
	slices.SortFunc(rep.Rows, func(a, b Row) int {
		switch by {
		case "session":
			return cmp.Or(a.End.Compare(b.End), cmp.Compare(a.Key, b.Key))
		case "workspace", "model":
			return cmp.Or(cmp.Compare(b.CostUSD, a.CostUSD), cmp.Compare(a.Key, b.Key))
		}
		return cmp.Compare(a.Key, b.Key) // dates sort as text
	})
	if rep.Total.Turns == 0 {
		rep.Total.CostKnown = true
	}
	return rep, nil
}

// merge adds a whole row to r (the total of block rows).
func (r *Row) merge(o Row) {
	if r.Turns == 0 {
		r.CostKnown = true
		r.Start, r.End = o.Start, o.End
	}
	r.Turns += o.Turns
	r.Usage = r.Usage.Add(o.Usage)
	r.TotalTokens += o.TotalTokens
	r.CostUSD += o.CostUSD
	r.CostKnown = r.CostKnown && o.CostKnown
	r.SubagentUsage = r.SubagentUsage.Add(o.SubagentUsage)
	r.SubagentCostUSD += o.SubagentCostUSD
	for _, m := range o.Models {
		if !slices.Contains(r.Models, m) {
			r.Models = append(r.Models, m)
		}
	}
	for _, m := range o.Unpriced {
		if !slices.Contains(r.Unpriced, m) {
			r.Unpriced = append(r.Unpriced, m)
		}
	}
	if o.Start.Before(r.Start) {
		r.Start = o.Start
	}
	if o.End.After(r.End) {
		r.End = o.End
	}
}

// inRangeOf reports whether a time falls on a day from since to until
// (inclusive) in loc; a zero bound is open.
func inRangeOf(since, until time.Time, loc *time.Location) func(time.Time) bool {
	var from, to time.Time
	if !since.IsZero() {
		from = dayStart(since, loc)
	}
	if !until.IsZero() {
		to = dayStart(until, loc).AddDate(0, 0, 1)
	}
	return func(t time.Time) bool {
		return (since.IsZero() || !t.Before(from)) && (until.IsZero() || t.Before(to))
	}
}

func dayStart(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// keyer says the row each turn sums into; turns come in time order, so
// the day of one is mostly the last one's: its key is made once.
type keyer struct {
	by       string
	loc      *time.Location
	y, d     int
	m        time.Month
	last     string
	lastKnow bool
}

func (k *keyer) of(t *Turn) string {
	switch k.by {
	case "day", "week", "month":
		y, m, d := t.End.In(k.loc).Date()
		if k.lastKnow && y == k.y && m == k.m && d == k.d {
			return k.last
		}
		k.y, k.m, k.d, k.lastKnow = y, m, d, true
		k.last = keyOf(*t, k.by, k.loc)
		return k.last
	}
	return keyOf(*t, k.by, k.loc)
}

// keyOf is the row a turn sums into.
func keyOf(t Turn, by string, loc *time.Location) string {
	switch by {
	case "week": // the Monday the week starts on
		d := dayStart(t.End, loc)
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7)).Format(DateLayout)
	case "month":
		return t.End.In(loc).Format("2006-01")
	case "session":
		return t.Agent + ":" + t.Session
	case "workspace":
		return cmp.Or(t.Workspace, "(unknown)")
	case "model":
		return cmp.Or(t.Model, "(none)")
	}
	return t.End.In(loc).Format(DateLayout)
}
