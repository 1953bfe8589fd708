package tray

import (
	"context"
	"slices"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/stream"
)

// wsEvent is an event of a workspace's stream, or word that its
// subscriber was cut loose (resubscribe after last).
type wsEvent struct {
	id      string
	e       event.Event
	dropped bool
	last    int64
}

// sessKey names one agent session of a workspace. A workspace's stream
// interleaves all its sessions; session "" holds events that name none
// (written by an engine from before sessions).
type sessKey struct{ ws, session string }

// spend is today's cost of one session. Cost includes subagents (the
// engine's turn_complete does); subagent says how much of it that was.
type spend struct {
	usd      float64
	subagent float64
	unknown  int      // turns whose cost is unknown (a model with no price)
	models   []string // those turns' models
}

func (s spend) add(o spend) spend {
	s.usd += o.usd
	s.subagent += o.subagent
	s.unknown += o.unknown
	for _, m := range o.models {
		if !slices.Contains(s.models, m) {
			s.models = append(s.models, m)
		}
	}
	return s
}

// follow subscribes to a workspace's stream. after < 0 means "from now":
// what is kept only sets today's cost and the latest answers, and notifies
// nobody; after >= 0 resumes a subscriber that was cut loose.
func (m *Menu) follow(ctx context.Context, id string, after int64) {
	t, ok := m.cfg.Engine.Topic(id)
	if !ok {
		return
	}
	from := after
	if from < 0 {
		from = 0
	}
	replay, _, sub := t.Subscribe(from)
	if after < 0 {
		for _, it := range replay {
			m.remember(id, it.Event())
			if it.Type == event.TurnComplete {
				// Kept from before: never notified again.
				m.notified[sessKey{id, it.SessionID}] = it.ID
			}
		}
		replay = nil
	}
	sctx, cancel := context.WithCancel(ctx)
	m.subs[id] = cancel
	go forward(sctx, t, sub, id, replay, m.events)
}

// forward hands a subscriber's events to the loop until ctx ends.
func forward(ctx context.Context, t *stream.Topic, sub *stream.Subscriber, id string, replay []stream.Item, out chan<- wsEvent) {
	defer t.Unsubscribe(sub)
	var last int64
	send := func(ev wsEvent) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, it := range replay {
		last = it.ID
		if !send(wsEvent{id: id, e: it.Event()}) {
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case it, ok := <-sub.C:
			if !ok {
				send(wsEvent{id: id, dropped: true, last: last})
				return
			}
			last = it.ID
			if !send(wsEvent{id: id, e: it.Event()}) {
				return
			}
		}
	}
}

// remember keeps what a notification and the menu need from an event, by
// session: two tabs of one workspace each have their answer and cost.
func (m *Menu) remember(id string, e event.Event) {
	key := sessKey{id, e.SessionID}
	switch {
	case e.Sidechain:
	case e.Type == event.Assistant:
		m.answer[key] = e.Content
	case e.Type == event.TurnComplete:
		day := m.cfg.Now().Format(time.DateOnly)
		if m.costDay != day {
			m.cost, m.costDay = map[sessKey]spend{}, day
		}
		ts := e.TS
		if ts.IsZero() {
			ts = m.cfg.Now()
		}
		if ts.Local().Format(time.DateOnly) != day {
			return
		}
		s := spend{usd: e.CostUSD, subagent: e.SubagentCostUSD}
		if !e.CostKnown {
			s = spend{unknown: 1}
			if e.Model != "" {
				s.models = []string{e.Model}
			}
		}
		m.cost[key] = m.cost[key].add(s)
	}
}
