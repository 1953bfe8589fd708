package usage

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"time"

	"github.com/valyala/fastjson"

	"conductorbridge/bridge/codex"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/price"
)

// Limit is a plan limit as Codex records it (event_msg token_count
// rate_limits): how much of a window's allowance was used when Seen.
type Limit struct {
	Agent         string    `json:"agent"`
	Name          string    `json:"name"` // primary (the short window), secondary (the weekly one)
	UsedPercent   float64   `json:"used_percent"`
	WindowMinutes int64     `json:"window_minutes,omitempty"`
	ResetsAt      time.Time `json:"resets_at,omitzero"`
	Plan          string    `json:"plan,omitempty"`
	Seen          time.Time `json:"seen"`
	// Workspace is the folder of the session that recorded it: a browser
	// is shown the limits recorded in workspaces it may see only.
	Workspace string `json:"-"`
}

var rateKey = []byte(`"rate_limits"`)

// readCodex reads one rollout with the streams' parser and calls fn with
// each completed turn; limits gets the newest rate limits it records.
func readCodex(path string, prices *price.Table, fn func(Turn), limits func([]Limit)) (int64, error) {
	out, err := readCodexFrom(path, prices, nil, nil, false, fn, limits)
	return out.bytes, err
}

// readCodexFrom reads a rollout from its start (from nil) or on from
// where an earlier read stopped; with keep it says where it stopped.
func readCodexFrom(path string, prices *price.Table, bufs *buffers, from *resume, keep bool, fn func(Turn), limits func([]Limit)) (readOut, error) {
	out := readOut{whole: true}
	r, err := bufs.open(path)
	if err != nil {
		return out, err
	}
	defer r.Close()
	var saved []byte
	var off int64
	var latest []Limit
	if from != nil {
		if len(from.Files) != 1 || from.Files[0].Path != path {
			return out, errNoResume
		}
		saved, off, latest = from.Files[0].Parser, from.Files[0].Off, slices.Clone(from.Limits)
		if err := r.seek(off); err != nil {
			return out, err
		}
	}
	p, err := codex.NewParser(saved)
	if err != nil {
		return out, errNoResume
	}
	p.Price = prices.ModelCost
	if keep {
		p.RecordCharges()
	}
	var (
		evs []event.Event
		jp  fastjson.Parser
		n   int
	)
	emit := func() {
		for _, e := range evs {
			if e.Type == event.TurnComplete {
				fn(fromEvent(e, AgentCodex, p.Cwd(), p.ThreadID()))
				n++
			}
		}
		if keep {
			var ends []pricing
			for _, tc := range p.TakeCharges() {
				ends = append(ends, pricing{model: tc.Model, codex: tc.Charges})
			}
			out.pair(evs, ends)
		}
		evs = evs[:0]
	}
	for {
		line, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			out.bytes = off + r.bytes
			return out, err
		}
		evs, _ = p.Line(line, evs) // a line that is not JSON is skipped, as the streams skip it
		if len(evs) > 0 {
			emit()
		}
		if bytes.Contains(line, rateKey) {
			if l := rateLimits(&jp, line); len(l) > 0 {
				latest = l
			}
		}
	}
	out.bytes, out.done = off+r.bytes, n
	if keep {
		if st, err := p.Save(); err == nil && (out.bytes == 0 || r.nl) {
			out.snap = &resume{Files: []mark{{Path: path, Off: out.bytes, Parser: st}}, Limits: slices.Clone(latest)}
		}
		if id, err := identify(r.f, path, out.bytes); err == nil {
			out.ids = []fileID{id}
		}
	}
	evs = p.Flush(evs)
	evs = p.Quiet(evs)
	evs = p.Interrupt(evs) // history: a turn cut off still spent what it spent, as the streams count it
	emit()
	if len(latest) > 0 {
		for i := range latest {
			latest[i].Workspace = p.Cwd()
		}
		limits(latest)
	}
	return out, nil
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

// rateLimits reads the windows of one token_count line's rate_limits.
// Releases differ: resets_at (unix seconds) or resets_in_seconds; either
// window may be null.
func rateLimits(jp *fastjson.Parser, line []byte) []Limit {
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
	var out []Limit
	for _, name := range []string{"primary", "secondary"} {
		w := rl.Get(name)
		if w == nil || w.Type() != fastjson.TypeObject || w.Get("used_percent") == nil {
			continue
		}
		used := w.GetFloat64("used_percent")
		if math.IsNaN(used) || math.IsInf(used, 0) {
			continue
		}
		l := Limit{Agent: AgentCodex, Name: name, UsedPercent: used,
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
