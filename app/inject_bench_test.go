package main

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/inject"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// Injection latency with the real Claude Code, p50/p99 over b.N messages:
//
//	go test ./app -run '^$' -bench Inject -benchtime 20x
//
// Idle: from POST …/messages to the request that carries the message (the
// waiting rewake hook wakes the agent). Busy: from the PostToolUse hook
// taking the message to that request (the tool's own runtime excluded).

func BenchmarkInjectIdle(b *testing.B) {
	e, fm, s := benchSession(b)
	s.Send("hello")
	ctx := context.Background()
	if _, err := s.WaitResult(ctx); err != nil {
		b.Fatal(err)
	}
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir })
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		time.Sleep(300 * time.Millisecond) // the next rewake hook connects after the turn
		msg := fmt.Sprintf("idle message %d", i)
		sent := time.Now()
		id := e.post(ws.ID, msg)
		r := waitRequest(b, fm, msg)
		lat = append(lat, r.Time.Sub(sent))
		e.waitState(ws.ID, id, inject.Confirmed)
		if _, err := s.WaitResult(ctx); err != nil {
			b.Fatal(err)
		}
	}
	report(b, lat)
}

func BenchmarkInjectBusy(b *testing.B) {
	e, fm, s := benchSession(b)
	var ws apiWorkspace
	var lat []time.Duration
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		fm.Push(fakemodel.Reply(fakemodel.Bash("sleep 0.5")), fakemodel.Reply(fakemodel.Text("ok")))
		prompt := fmt.Sprintf("busy turn %d", i)
		s.Send(prompt)
		waitRequest(b, fm, prompt)
		if ws.ID == "" {
			ws = e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir })
		}
		msg := fmt.Sprintf("busy message %d", i)
		id := e.post(ws.ID, msg)
		r := waitRequest(b, fm, msg)
		m := e.waitState(ws.ID, id, inject.Confirmed)
		if m.Via != "post_tool_use" {
			b.Fatalf("delivered via %s", m.Via)
		}
		lat = append(lat, r.Time.Sub(m.Delivered))
		if _, err := s.WaitResult(ctx); err != nil {
			b.Fatal(err)
		}
	}
	report(b, lat)
}

func benchSession(b *testing.B) (*agentEnv, *fakemodel.Server, *claudetest.Session) {
	b.Helper()
	e := newAgentEnv(b)
	fm := fakemodel.NewTest(b)
	e.start(0)
	_, s := e.session(fm, claudetest.Options{})
	return e, fm, s
}

func report(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	if len(lat) == 0 {
		return
	}
	p := func(q float64) float64 {
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(p(0.5), "p50-ms")
	b.ReportMetric(p(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
