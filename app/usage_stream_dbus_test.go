//go:build linux

package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	usagerep "conductorbridge/bridge/usage"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/dbustest"
	"conductorbridge/testkit/fakemodel"
)

// TestUsageEqualsTheStreamsAndTheMenuBar: real Claude Code (a turn with a
// subagent, then a plain one) and a real Codex run work in one folder while
// the bridge follows them. The tokens and dollars of the turn_complete
// events it streamed, GET /api/usage over the same files, and the menu
// bar's "Today's cost" all say the same.
func TestUsageEqualsTheStreamsAndTheMenuBar(t *testing.T) {
	codexBin := codextest.Find(t, codextest.Latest)
	bus := dbustest.Start(t)
	watcher := bus.Watcher(t)
	e := newAgentEnv(t)
	const model = "claude-sonnet-4-5-20250929"
	big := fakemodel.Usage{InputTokens: 20000, CacheCreationInputTokens: 10000, CacheReadInputTokens: 50000, OutputTokens: 3000}
	agent := map[string]any{"description": "Survey", "prompt": "Look around.", "subagent_type": "general-purpose", "run_in_background": false}
	claude := fakemodel.NewTest(t,
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Asking a subagent."), fakemodel.ToolUse("Agent", agent)}, Usage: big, Model: model},
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Empty workspace.")}, Usage: big, Model: model},
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("The subagent says it is empty.")}, Usage: big, Model: model},
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Nothing else to do.")}, Usage: big, Model: model},
	)
	oai := fakemodel.NewTest(t, codextest.FirstTurn()...)
	env := []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}
	e.p = startBridgeWith(t, e.home, 0, env)
	e.cfg.Addr = strings.TrimPrefix(e.p.base, "http://")

	ctx, s := e.session(claude, claudetest.Options{AllowedTools: append(claudetest.DefaultTools(), "Agent", "Task")})
	for _, prompt := range []string{"Ask a subagent to look around.", "Anything else?"} {
		if err := s.Send(prompt); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WaitResult(ctx); err != nil {
			t.Fatal(err)
		}
	}
	co := codextest.Options{Bin: codexBin, BaseURL: oai.URL(), Home: e.home, Dir: e.dir, Prompt: codextest.FirstPrompt}
	if _, err := codextest.Run(ctx, co); err != nil {
		t.Fatal(err)
	}

	// What the stream said: every turn_complete of the folder's workspace
	// (the Claude session and the Codex one are two sessions of it).
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir && len(w.Sessions) == 2 })
	evs := openStream(t, e.p, ws.ID, 0).until(t, 60*time.Second, func(evs []event.Event) bool {
		n := 0
		for _, n2 := range turnsBySession(evs) {
			n += n2
		}
		return n == 3
	})
	var streamed event.Usage
	var streamedUSD float64
	for _, ev := range evs {
		if ev.Type == event.TurnComplete {
			if !ev.CostKnown {
				t.Fatalf("turn of %s not priced", ev.Model)
			}
			streamed, streamedUSD = streamed.Add(ev.Usage), streamedUSD+ev.CostUSD
		}
	}

	// What the usage API says over the same files.
	var rep usagerep.Report
	if err := apiCall(context.Background(), e.cfg, http.MethodGet, "/api/usage?by=session", nil, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Total.Turns != 3 || rep.Total.Usage != streamed || math.Abs(rep.Total.CostUSD-streamedUSD) > 1e-9 {
		t.Errorf("usage: %d turns, %+v, $%v; the streams: 3 turns, %+v, $%v", rep.Total.Turns, rep.Total.Usage, rep.Total.CostUSD, streamed, streamedUSD)
	}
	if rep.Total.SubagentCostUSD <= 0 {
		t.Errorf("the subagent's share is missing: %+v", rep.Total)
	}

	// What the menu bar says.
	conn, item := trayIcon(ctx, t, bus, watcher, e.p)
	want := fmt.Sprintf("Today's cost: $%.2f — usage…", streamedUSD)
	if _, err := dbustest.WaitLabels(ctx, conn, item, want); err != nil {
		t.Fatalf("the menu never said %q: %v", want, err)
	}
	t.Logf("streams, usage and menu bar: $%.4f (%s)", streamedUSD, want)
}
