package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	usagerep "conductorbridge/bridge/usage"
)

// The restart proofs of issue 25 run one scripted session twice against
// the fake model: once with the bridge up throughout, once with the
// bridge killed (SIGKILL) before each step marked down and started again
// on its port after it. What a client sees must be the same: the same
// events with the same payloads in the same order, the same tokens and
// cost per turn, and the same usage. Only ids may differ, and only from
// the first restart on.

// downStep is one turn of a scripted session.
type downStep struct {
	name string
	// down: in the interrupted run the bridge is killed before this turn
	// and started again once it has ended.
	down bool
	// run runs the turn's agent to its end and returns its session id.
	run func(t *testing.T) string
}

// downRun is what a client saw of one run of the script.
type downRun struct {
	home    string
	events  []event.Event // as streamed, resumed from the last id after each restart
	restart int           // index in events of the first event after the first restart; -1 if none
	usage   usagerep.Report
}

// runDownScript runs steps in e, with the bridge killed around the down
// steps when interrupted, and reads the stream after each step until it
// holds that step's turn_complete.
func runDownScript(t *testing.T, e *agentEnv, steps []downStep, interrupted bool) downRun {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	e.start(port)
	r := downRun{home: e.home, restart: -1}
	var ws string
	var c *sseClient
	var last int64
	for i, s := range steps {
		down := interrupted && s.down
		if down {
			e.p.kill(syscall.SIGKILL)
			if c != nil {
				c.cancel()
				c = nil
			}
		}
		t.Logf("%s (bridge down: %v)", s.name, down)
		s.run(t)
		if down {
			e.start(port)
		}
		if ws == "" {
			ws = e.workspace().ID
		}
		if c == nil {
			c = openStream(t, e.p, ws, last)
			if down && r.restart < 0 {
				r.restart = len(r.events)
			}
		}
		more := c.until(t, 90*time.Second, settledAfter(r.events, i+1))
		r.events = append(r.events, more...)
		last = r.events[len(r.events)-1].ID
	}
	c.cancel()
	if err := apiCall(context.Background(), e.cfg, http.MethodGet, "/api/usage?by=session", nil, &r.usage); err != nil {
		t.Fatalf("usage: %v", err)
	}
	e.p.kill(syscall.SIGTERM)
	return r
}

// settledAfter is true once the stream, with before, holds turns
// turn_complete events.
func settledAfter(before []event.Event, turns int) func([]event.Event) bool {
	return func(evs []event.Event) bool {
		n := 0
		for _, ev := range append(append([]event.Event(nil), before...), evs...) {
			if ev.Type == event.TurnComplete {
				n++
			}
		}
		return n >= turns
	}
}

// history is what r streamed of its sessions, without the status events,
// and the index in it of the first event after the first restart. A
// status says what the bridge saw of a session at that moment: a turn
// that ran while the bridge was down was never seen working, and one the
// bridge found only once it had ended was not either, so statuses are
// not compared.
func history(r downRun) ([]event.Event, int) {
	var out []event.Event
	restart := -1
	for i, ev := range r.events {
		if i == r.restart {
			restart = len(out)
		}
		if ev.Type != event.Status {
			out = append(out, ev)
		}
	}
	return out, restart
}

// shown is an event as a client compares it across the two runs: ids,
// times and durations left out (a Codex rollout's too), session and tool ids named by the order
// they first appear in (in paths too), the home's path (and Claude's
// project folder named after it) replaced, and costs to a billionth of a
// cent: a turn's cost is a float sum whose order may follow the order its
// subagents' files were read in, which a catch-up does not keep (0.0014
// against 0.0013999999999999998 for 2.0.77's three warm-up agents).
func shown(evs []event.Event, home string) []string {
	names := map[string]string{}
	var ids []string
	name := func(kind, id string) string {
		if id == "" {
			return ""
		}
		if n, ok := names[id]; ok {
			return n
		}
		names[id] = fmt.Sprintf("%s%d", kind, len(names)+1)
		ids = append(ids, id)
		return names[id]
	}
	// The date and time a Codex rollout's path names: when its run began.
	rolloutTime := regexp.MustCompile(`/\d{4}/\d\d/\d\d/rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-`)
	project := regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(home, "-")
	out := make([]string, len(evs))
	for i, ev := range evs {
		ev.ID, ev.TS, ev.DurationMS = 0, time.Time{}, 0
		ev.SessionID = name("session", ev.SessionID)
		ev.ToolUseID = name("tool", ev.ToolUseID)
		ev.Path = rolloutTime.ReplaceAllString(ev.Path, "/$$DATE/rollout-$$TIME-")
		ev.CostUSD, ev.SubagentCostUSD = math.Round(ev.CostUSD*1e11)/1e11, math.Round(ev.SubagentCostUSD*1e11)/1e11
		b, err := json.Marshal(ev)
		if err != nil {
			panic(err)
		}
		out[i] = strings.NewReplacer(home, "$HOME", project, "$PROJECT").Replace(string(b))
	}
	for i := range out {
		for _, id := range ids {
			out[i] = strings.ReplaceAll(out[i], id, names[id])
		}
	}
	return out
}

// compareDownRuns fails t where the interrupted run b shows a client
// something else than the uninterrupted run a.
func compareDownRuns(t *testing.T, a, b downRun) {
	t.Helper()
	if b.restart < 0 {
		t.Fatal("the interrupted run was never restarted")
	}
	ea, _ := history(a)
	eb, restart := history(b)
	sa, sb := shown(ea, a.home), shown(eb, b.home)
	for i := 0; i < len(sa) || i < len(sb); i++ {
		switch {
		case i >= len(sa):
			t.Errorf("event %d only after the restart: %s", i, sb[i])
		case i >= len(sb):
			t.Errorf("event %d only without the restart: %s", i, sa[i])
		case sa[i] != sb[i]:
			t.Errorf("event %d differs:\nuninterrupted %s\ninterrupted   %s", i, sa[i], sb[i])
		}
	}
	if t.Failed() {
		t.Logf("uninterrupted: %v\ninterrupted (restart at %d): %v", kinds(ea), restart, kinds(eb))
	}
	// Ids follow on: the stream resumed after a restart starts at the id
	// after the last one seen, and never goes back. (Statuses take ids
	// too, as many as the bridge saw moments, so the two runs' ids are
	// not compared.)
	for i := 1; i < len(b.events); i++ {
		if b.events[i].ID != b.events[i-1].ID+1 {
			t.Errorf("event %d (%s) has id %d after %d", i, b.events[i].Type, b.events[i].ID, b.events[i-1].ID)
		}
	}
	// Every turn is priced, usage counts each session's turns as the
	// stream did, and no session the stream has no turn of (2.0.77's
	// `--resume` leaves an empty record whose warm-ups spent tokens: no
	// session, in either).
	for _, r := range []downRun{a, b} {
		type sum struct {
			turns  int
			tokens event.Usage
			cost   float64
		}
		streamed := map[string]sum{}
		for _, ev := range r.events {
			if ev.Type != event.TurnComplete {
				continue
			}
			if !ev.CostKnown || ev.CostUSD <= 0 || ev.Interrupted {
				t.Errorf("turn of %s: cost known %v, $%v, interrupted %v", ev.Model, ev.CostKnown, ev.CostUSD, ev.Interrupted)
			}
			s := streamed[ev.SessionID]
			streamed[ev.SessionID] = sum{s.turns + 1, s.tokens.Add(ev.Usage), s.cost + ev.CostUSD}
		}
		for id, s := range streamed {
			var u usagerep.Row
			for _, row := range r.usage.Rows {
				if strings.HasSuffix(row.Key, ":"+id) {
					u = row
				}
			}
			if u.Turns != s.turns || u.Usage != s.tokens || math.Abs(u.CostUSD-s.cost) > 1e-9 {
				t.Errorf("usage of %s: %d turns, %+v, $%v; the stream: %d turns, %+v, $%v", id, u.Turns, u.Usage, u.CostUSD, s.turns, s.tokens, s.cost)
			}
		}
		for _, row := range r.usage.Rows {
			if _, id, _ := strings.Cut(row.Key, ":"); streamed[id] == (sum{}) {
				t.Errorf("usage counts %s, of which the stream has no turn: %d turns, %+v", row.Key, row.Turns, row.Usage)
			}
		}
	}
	if ua, ub := usageRows(a.usage), usageRows(b.usage); strings.Join(ua, "\n") != strings.Join(ub, "\n") {
		t.Errorf("usage by session differs:\nuninterrupted %v\ninterrupted   %v", ua, ub)
	}
}

// usageRows are a report's session rows as the two runs can compare them
// (turns, tokens and cost; the session ids differ for Codex), sorted.
func usageRows(r usagerep.Report) []string {
	var out []string
	for _, row := range r.Rows {
		out = append(out, fmt.Sprintf("%d turns %+v $%.9f", row.Turns, row.Usage, row.CostUSD))
	}
	sort.Strings(out)
	return out
}
