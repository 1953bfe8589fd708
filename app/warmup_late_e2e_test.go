package main

import (
	"context"
	"math"
	"net/http"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	usagerep "conductorbridge/bridge/usage"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealClaudeLateWarmupsCountInTheirTurn: real Claude Code 2.0.77, run
// as Conductor runs it (a long-lived stream-json process, the bridge's
// hooks installed), sends three warm-ups as it starts. The fake model
// holds their answers until the turn's answer is on the stream, its
// result printed and its Stop hook run: they are written after the turn
// would have ended. The turn's turn_complete counts them all the same
// (the fake model's 111+11 tokens and 100+20 for each warm-up, its answer
// to a request that sets none), and usage counts what the stream did.
// Before, the stream's turn ended without them and carried them to a next
// turn that never came, while usage counted them in the turn.
func TestRealClaudeLateWarmupsCountInTheirTurn(t *testing.T) {
	e := newAgentEnv(t)
	e.bin = claudetest.Find(t, "2.0.77")
	hold := make(chan struct{})
	fm := fakemodel.New(fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("First answer.")}, Usage: fakemodel.Usage{InputTokens: 111, OutputTokens: 11}})
	fm.WarmupHold = hold
	if _, err := fm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fm.Close)
	released := false
	release := func() {
		if !released {
			released = true
			close(hold)
		}
	}
	defer release()
	e.start(0)
	defer e.p.kill(syscall.SIGTERM)
	const session = "11111111-2222-4333-8444-555555555555"
	ctx, s := e.session(fm, claudetest.Options{SessionID: session})
	if err := s.Send("first"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitResult(ctx); err != nil {
		t.Fatalf("no result: %v\n%s", err, s.Stderr())
	}
	ws := e.workspace()
	c := openStream(t, e.p, ws.ID, 0)
	defer c.cancel()
	evs := c.until(t, 60*time.Second, func(evs []event.Event) bool {
		for _, ev := range evs {
			if ev.Type == event.Assistant && ev.Content == "First answer." {
				return true
			}
		}
		return false
	})
	warmups := 0
	for _, r := range fm.Requests() {
		if r.Kind == fakemodel.KindWarmup {
			warmups++
		}
	}
	if warmups == 0 {
		t.Fatal("2.0.77 sent no warm-up")
	}
	release()
	evs = append(evs, c.until(t, 60*time.Second, func(more []event.Event) bool {
		return len(eventtest.OfType(append(evs, more...), event.TurnComplete)) > 0
	})...)
	tc := eventtest.OfType(evs, event.TurnComplete)[0]
	want := event.Usage{InputTokens: 111 + int64(warmups)*100, OutputTokens: 11 + int64(warmups)*20}
	if tc.Usage != want || tc.Interrupted {
		t.Errorf("turn_complete: %+v, interrupted %v; want %+v (%d warm-ups)", tc.Usage, tc.Interrupted, want, warmups)
	}
	var rep usagerep.Report
	if err := apiCall(context.Background(), e.cfg, http.MethodGet, "/api/usage?by=session", nil, &rep); err != nil {
		t.Fatalf("usage: %v", err)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Turns != 1 || rep.Rows[0].Usage != tc.Usage || math.Abs(rep.Rows[0].CostUSD-tc.CostUSD) > 1e-9 {
		t.Errorf("usage: %+v; the stream: 1 turn, %+v, $%v", rep.Rows, tc.Usage, tc.CostUSD)
	}
}
