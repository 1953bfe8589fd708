package main

import (
	"context"
	"database/sql"
	"math"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/fakemodel"
	"conductorbridge/testkit/opencodetest"
)

// opencodeTurns are the two turns each OpenCode test plays: one answer
// each, with usage, so each turn has a cost.
func opencodeTurns() []fakemodel.Turn {
	return []fakemodel.Turn{
		{Blocks: []fakemodel.Block{fakemodel.Text("The first answer.")}, Usage: fakemodel.Usage{InputTokens: 900, OutputTokens: 30}},
		{Blocks: []fakemodel.Block{fakemodel.Text("The second answer.")}, Usage: fakemodel.Usage{InputTokens: 1400, OutputTokens: 45}},
	}
}

// openCodeTab starts `opencode acp` in the home's work folder as
// Conductor runs it for a tab (closed when the test ends), opens its
// session, and writes a Conductor database of that schema shape with one
// workspace in the work folder and one "acp" tab, s-oc, whose row names
// the session, as Conductor records it.
func openCodeTab(ctx context.Context, t *testing.T, h *opencodetest.Home, bin string, shape conductordb.Shape) (*opencodetest.ACP, string) {
	t.Helper()
	acp, err := h.StartACP(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(acp.Close)
	sid, err := acp.NewSession(ctx, h.Work)
	if err != nil {
		t.Fatal(err)
	}
	w, err := conductordb.CreateIn(h.Dir, shape.Schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	must(t, w.AddTab(shape, "w-oc", "s-oc", "acp", "OpenCode tab"))
	must(t, w.Exec("UPDATE sessions SET claude_session_id = ? WHERE id = 's-oc'", sid))
	must(t, w.PlaceWorkspace("w-oc", "demo", h.Work, h.Work, "me/oc"))
	return acp, sid
}

// sessionCost is OpenCode's own total for a session, from its session row.
func sessionCost(t *testing.T, db, session string) float64 {
	t.Helper()
	var cost float64
	queryOpenCode(t, db, &cost, "SELECT cost FROM session WHERE id = ?", session)
	return cost
}

// queryOpenCode reads the one value query selects from OpenCode's
// database db, opened read-only, into dest.
func queryOpenCode(t *testing.T, db string, dest any, query string, args ...any) {
	t.Helper()
	d, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: db}).String()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.QueryRow(query, args...).Scan(dest); err != nil {
		t.Fatal(err)
	}
}

// checkOpenCodeStream checks a session's stream against what the model
// served and what OpenCode stored: each answer once, two turns whose
// costs sum to OpenCode's own, the last status idle.
func checkOpenCodeStream(t *testing.T, evs []event.Event, session string, cost float64) {
	t.Helper()
	texts := map[string]int{}
	var sum float64
	turns, status := 0, ""
	for _, ev := range evs {
		if ev.SessionID != session {
			continue
		}
		switch ev.Type {
		case event.Assistant:
			texts[ev.Content]++
		case event.TurnComplete:
			turns++
			if !ev.CostKnown {
				t.Errorf("a turn of %s with no known cost", session)
			}
			sum += ev.CostUSD
		case event.Status:
			status = ev.State
		}
	}
	for _, want := range []string{"The first answer.", "The second answer."} {
		if texts[want] != 1 {
			t.Errorf("%q streamed %d times, want once (all: %v)", want, texts[want], texts)
		}
	}
	if turns != 2 || cost <= 0 || math.Abs(sum-cost) > 1e-9 {
		t.Errorf("%d turns costing $%v, OpenCode's session cost $%v", turns, sum, cost)
	}
	if status != event.StateIdle {
		t.Errorf("last status %q, want idle", status)
	}
}

// TestOpenCodeInAPlainFolderStreams runs the real OpenCode in a plain
// folder while a bridge runs: the folder's session is found in OpenCode's
// database and streamed with its turns' cost (OpenCode's own) and status;
// the bridge is stopped after the first turn and the second runs while it
// is down: nothing is lost or streamed twice.
func TestOpenCodeInAPlainFolderStreams(t *testing.T) {
	bin := opencodetest.Find(t)
	srv := opencodetest.Server(t, opencodeTurns()...)
	h := opencodetest.NewHome(t, srv.URL())
	// Each run has a budget of its own: one takes about 15 s of CPU, and
	// with two suites beside each other on two cores (load 20-25) 100 s
	// and more; one 3-minute budget for both runs, the bridge and the
	// streams ran out in the second run.
	run := func(prompt string, args ...string) (opencodetest.Run, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		r, err := h.Run(ctx, bin, prompt, args...)
		t.Logf("opencode run %q took %v, %v of CPU", prompt, r.Wall.Round(time.Millisecond), r.CPU.Round(time.Millisecond))
		return r, err
	}
	first, err := run("first question")
	if err != nil {
		t.Fatal(err)
	}
	p := startBridgeWith(t, h.Dir, 0, nil, "--headless", "--opencode-db", h.DB())
	ws := p.waitFor(func(a apiWorkspace) bool { return sameDir(a.Directory, h.Work) })
	openStream(t, p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		return countType(evs, first.Session, event.TurnComplete) == 1
	})
	p.kill(syscall.SIGTERM)
	if _, err := run("second question", "--session", first.Session); err != nil {
		t.Fatal(err)
	}
	p = startBridgeWith(t, h.Dir, 0, nil, "--headless", "--opencode-db", h.DB())
	ws = p.waitFor(func(a apiWorkspace) bool { return sameDir(a.Directory, h.Work) })
	evs := openStream(t, p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		return countType(evs, first.Session, event.TurnComplete) >= 2
	})
	checkOpenCodeStream(t, evs, first.Session, sessionCost(t, h.DB(), first.Session))
	s := waitSession(t, p, ws.ID, first.Session, func(s map[string]any) bool { return s["status"] == event.StateIdle })
	// This bridge has no opencode on its PATH: no route, and the listing
	// says so (TestOpenCodeIdleSessionTakesAMessage gives it one).
	if blocked, _ := s["messages_blocked"].(string); s["source"] != "acp" || s["agent_label"] != "OpenCode" || !strings.Contains(blocked, "no opencode binary") {
		t.Errorf("listed as source %v, label %v, messages blocked %v", s["source"], s["agent_label"], s["messages_blocked"])
	}
}

// TestOpenCodeConductorTabStreams runs the real `opencode acp` as Conductor
// runs an "acp" tab, the tab in a Conductor database of each schema shape
// with OpenCode's session id in claude_session_id: the tab streams its two
// turns, with OpenCode's cost, across a bridge restart between them.
func TestOpenCodeConductorTabStreams(t *testing.T) {
	bin := opencodetest.Find(t)
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			srv := opencodetest.Server(t, opencodeTurns()...)
			h := opencodetest.NewHome(t, srv.URL())
			// 3 minutes a turn, as TestOpenCodeInAPlainFolderStreams gives
			// each run: the ACP server lives through both.
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
			defer cancel()
			acp, sid := openCodeTab(ctx, t, h, bin, shape)

			prompt := func(text string) {
				ch, err := acp.Prompt(sid, text)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := acp.Wait(ctx, "session/prompt", ch); err != nil {
					t.Fatal(err)
				}
			}
			p := startBridgeWith(t, h.Dir, 0, nil, "--headless", "--opencode-db", h.DB())
			ws := p.waitFor(func(a apiWorkspace) bool { return a.ID == "w-oc" })
			c := openStream(t, p, ws.ID, 0)
			prompt("first question")
			c.until(t, 30*time.Second, func(evs []event.Event) bool { return countType(evs, sid, event.TurnComplete) == 1 })
			p.kill(syscall.SIGTERM)
			prompt("second question")
			p = startBridgeWith(t, h.Dir, 0, nil, "--headless", "--opencode-db", h.DB())
			evs := openStream(t, p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
				return countType(evs, sid, event.TurnComplete) >= 2
			})
			checkOpenCodeStream(t, evs, sid, sessionCost(t, h.DB(), sid))
			s := waitSession(t, p, ws.ID, sid, func(s map[string]any) bool { return s["status"] == event.StateIdle })
			if s["source"] != "acp" || s["conductor_session_id"] != "s-oc" || s["agent_label"] != "OpenCode" {
				t.Errorf("the tab is listed as source %v, conductor id %v, label %v", s["source"], s["conductor_id"], s["agent_label"])
			}
		})
	}
}

// waitSession waits until a workspace lists session as ok says.
func waitSession(t *testing.T, p *bridgeProc, ws, session string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var list struct {
			Sessions []map[string]any `json:"sessions"`
		}
		must(t, getJSON(context.Background(), p.cl(), "/api/workspaces/"+ws, p.token(), &list))
		for _, s := range list.Sessions {
			if s["session_id"] == session && ok(s) {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s never listed as wanted: %v", session, list.Sessions)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
