package main

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/fakemodel"
	"conductorbridge/testkit/opencodetest"
)

// TestOpenCodeTabHandedOverToItsOwnRecord: an OpenCode ("acp") tab whose
// row names no OpenCode session is first read from Conductor's own rows
// (OpenCode has no session in the folder yet). The real `opencode acp`
// then opens the tab's session and runs its first turn, which Conductor
// mirrors into its rows; the tab is handed over to OpenCode's record once
// that turn has ended, and the second turn streams from it while
// Conductor's rows of the same turn are not streamed again. Conductor then
// writes OpenCode's session id into the row: the tab is listed under that
// id, read on from the same record, and its third turn streams once.
// Every prompt and answer streams exactly once, and the turns cost what
// OpenCode's session did.
func TestOpenCodeTabHandedOverToItsOwnRecord(t *testing.T) {
	bin := opencodetest.Find(t)
	shape := conductordb.Shapes(t)[0]
	turns := append(opencodeTurns(), fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("The third answer.")},
		Usage: fakemodel.Usage{InputTokens: 1900, OutputTokens: 50}})
	srv := opencodetest.Server(t, turns...)
	h := opencodetest.NewHome(t, srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute) // 3 minutes a turn, as the other tests
	defer cancel()

	w, err := conductordb.CreateIn(h.Dir, shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const tab = "s-oc"
	must(t, w.AddTab(shape, "w-oc", tab, "acp", "OpenCode tab"))
	must(t, w.PlaceWorkspace("w-oc", "demo", h.Work, h.Work, "me/oc"))

	// Conductor's rows of a turn, as it writes them for every agent: the
	// typed prompt, then Claude-style frames, the status around them.
	row := func(role string, content any) {
		t.Helper()
		s, ok := content.(string)
		if !ok {
			b, err := json.Marshal(content)
			must(t, err)
			s = string(b)
		}
		if _, err := w.Message(tab, role, s); err != nil {
			t.Fatal(err)
		}
	}
	prompted := func(text string) {
		must(t, w.Exec("UPDATE sessions SET status = 'working' WHERE id = ?", tab))
		row("user", text)
	}
	answered := func(n int, answer string, total float64) {
		row("assistant", map[string]any{"type": "assistant", "message": map[string]any{"id": "msg-" + answer, "role": "assistant",
			"model": "fake", "content": []any{map[string]any{"type": "text", "text": answer}},
			"usage": map[string]any{"input_tokens": turns[n].Usage.InputTokens, "output_tokens": turns[n].Usage.OutputTokens}}})
		row("assistant", map[string]any{"type": "result", "subtype": "success", "is_error": false, "duration_ms": 1200, "total_cost_usd": total})
		must(t, w.Exec("UPDATE sessions SET status = 'idle' WHERE id = ?", tab))
	}

	p := startBridgeWith(t, h.Dir, 0, nil, "--headless", "--opencode-db", h.DB())
	ws := p.waitFor(func(a apiWorkspace) bool { return a.ID == "w-oc" })
	c := openStream(t, p, ws.ID, 0)
	prompted("first question")
	c.until(t, 30*time.Second, func(evs []event.Event) bool { return countType(evs, tab, event.User) == 1 })
	if s := waitSession(t, p, ws.ID, tab, func(map[string]any) bool { return true }); s["source"] != "conductor" {
		t.Fatalf("before OpenCode has a session the tab is read from %v, want Conductor's rows", s["source"])
	}

	acp, err := h.StartACP(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer acp.Close()
	sid, err := acp.NewSession(ctx, h.Work)
	if err != nil {
		t.Fatal(err)
	}
	prompt := func(text string) {
		t.Helper()
		start := time.Now()
		ch, err := acp.Prompt(sid, text)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := acp.Wait(ctx, "session/prompt", ch); err != nil {
			t.Fatal(err)
		}
		t.Logf("opencode's turn %q took %v", text, time.Since(start).Round(time.Millisecond))
	}
	prompt("first question")
	answered(0, "The first answer.", sessionCost(t, h.DB(), sid))
	waitSession(t, p, ws.ID, tab, func(s map[string]any) bool { return s["source"] == "acp" && s["status"] == event.StateIdle })

	// The second turn: OpenCode's record streams it; Conductor's mirror of
	// it must not stream a second time.
	prompted("second question")
	prompt("second question")
	answered(1, "The second answer.", sessionCost(t, h.DB(), sid))
	c.until(t, 30*time.Second, func(evs []event.Event) bool { return countType(evs, tab, event.TurnComplete) == 2 })

	// Conductor records the tab's OpenCode session: the tab is listed
	// under that id and read on from the same record.
	must(t, w.Exec("UPDATE sessions SET claude_session_id = ? WHERE id = ?", sid, tab))
	waitSession(t, p, ws.ID, sid, func(s map[string]any) bool { return s["source"] == "acp" && s["conductor_session_id"] == tab })
	prompted("third question")
	prompt("third question")
	answered(2, "The third answer.", sessionCost(t, h.DB(), sid))
	c.until(t, 30*time.Second, func(evs []event.Event) bool { return countType(evs, sid, event.TurnComplete) == 1 })
	waitSession(t, p, ws.ID, sid, func(s map[string]any) bool { return s["status"] == event.StateIdle })
	// Everything the workspace streamed, from its first event.
	evs := openStream(t, p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		return countType(evs, sid, event.TurnComplete) == 1
	})

	texts := map[string]int{}
	var cost float64
	turnsSeen, handedAt, secondAt := 0, -1, -1
	for i, ev := range evs {
		if ev.SessionID != tab && ev.SessionID != sid {
			continue
		}
		switch ev.Type {
		case event.User, event.Assistant:
			texts[ev.Type+": "+ev.Content]++
			if ev.Content == "second question" && secondAt < 0 {
				secondAt = i
			}
		case event.TurnComplete:
			turnsSeen++
			cost += ev.CostUSD
		case event.Session:
			if ev.Reason == "start" && ev.SessionID == tab && strings.HasPrefix(ev.Path, h.DB()+"#") && handedAt < 0 {
				handedAt = i
			}
		}
	}
	for _, want := range []string{"first question", "second question", "third question"} {
		if texts["user: "+want] != 1 {
			t.Errorf("prompt %q streamed %d times, want once (all: %v)", want, texts["user: "+want], texts)
		}
	}
	for _, want := range []string{"The first answer.", "The second answer.", "The third answer."} {
		if texts["assistant: "+want] != 1 {
			t.Errorf("%q streamed %d times, want once (all: %v)", want, texts["assistant: "+want], texts)
		}
	}
	if total := sessionCost(t, h.DB(), sid); turnsSeen != 3 || math.Abs(cost-total) > 1e-9 {
		t.Errorf("%d turns costing $%v, OpenCode's session cost $%v", turnsSeen, cost, total)
	}
	if t.Failed() {
		for _, ev := range evs {
			t.Logf("%d %s %s %q %s %s %v", ev.ID, ev.SessionID, ev.Type, ev.Content, ev.Path, ev.Reason+ev.State, ev.CostUSD)
		}
	}
	if handedAt < 0 || secondAt < handedAt {
		t.Errorf("the tab was not handed over to OpenCode's record before its second turn (handed over at event %d, second prompt at %d): %v",
			handedAt, secondAt, kinds(evs))
	}
}
