package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/inject"
	"conductorbridge/testkit/fakemodel"
	"conductorbridge/testkit/opencodetest"
)

// carrying counts the model calls whose newest user text holds text: the
// calls OpenCode made to answer it.
func carrying(srv *fakemodel.Server, text string) int {
	n := 0
	for _, r := range srv.MainRequests() {
		if strings.Contains(r.LastUserText(), text) {
			n++
		}
	}
	return n
}

// TestOpenCodeTabTakesAMessage: a message the side panel posts for a
// Conductor OpenCode ("acp") tab, whose `opencode acp` is running as
// Conductor runs it, reaches OpenCode's session exactly once — at once
// when the tab is idle, and when its turn is running (its command held
// open) only after that turn has ended: the model is asked to answer it
// once, OpenCode records it once, and the tab's stream shows the person's
// words, the answer and the turn's end once each.
func TestOpenCodeTabTakesAMessage(t *testing.T) {
	bin := opencodetest.Find(t)
	for _, tt := range []struct {
		name string
		busy bool // the message is posted while the tab's first turn runs
	}{
		{"idle", false},
		{"busy", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			started, release := filepath.Join(tmp, "started"), filepath.Join(tmp, "release")
			var script []fakemodel.Turn
			if tt.busy {
				script = append(script, fakemodel.Reply(fakemodel.Bash(
					fmt.Sprintf("touch %s; while [ ! -f %s ]; do sleep 0.1; done; echo released", started, release))))
			}
			script = append(script, fakemodel.Reply(fakemodel.Text("The first answer.")),
				fakemodel.Reply(fakemodel.Text("The message's answer.")))
			srv := opencodetest.Server(t, script...)
			h := opencodetest.NewHome(t, srv.URL())
			// The tab's turn, then the bridge's own `opencode run`: each
			// 15-20 s of CPU, minutes of wall time on a loaded machine.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			acp, sid := openCodeTab(ctx, t, h, bin, conductordb.Shapes(t)[0])
			first, err := acp.Prompt(sid, "first question")
			if err != nil {
				t.Fatal(err)
			}
			if tt.busy {
				waitFile(ctx, t, started)
			} else if _, err := acp.Wait(ctx, "session/prompt", first); err != nil {
				t.Fatal(err)
			}

			p := startBridgeWith(t, h.Dir, 0, openCodeBridgeEnv(h, bin), "--headless", "--opencode-db", h.DB())
			ws := p.waitFor(func(a apiWorkspace) bool { return a.ID == "w-oc" })
			sse := openStream(t, p, ws.ID, 0)
			status := event.StateIdle
			if tt.busy {
				status = event.StateWorking
			}
			s := waitSession(t, p, ws.ID, sid, func(s map[string]any) bool { return s["status"] == status })
			if s["source"] != "acp" || s["conductor_session_id"] != "s-oc" || s["messages_blocked"] != nil {
				t.Fatalf("the tab is listed as source %v, conductor id %v, messages blocked %v",
					s["source"], s["conductor_session_id"], s["messages_blocked"])
			}

			const text = "opencode tab: check the footer"
			id := postFor(t, p, ws.ID, sid, text)
			e := &agentEnv{t: t, p: p}
			if tt.busy {
				// The bridge saw the busy tab with the message waiting and
				// left it queued; nothing has reached OpenCode.
				waitLogged(t, p, `"session":"`+sid+`"`, "a message waits while the session is busy")
				if m := e.messages(ws.ID)[id]; m.State != inject.Queued {
					t.Fatalf("while the tab's turn runs the message is %+v", m)
				}
				must(t, os.WriteFile(release, nil, 0o644))
				if _, err := acp.Wait(ctx, "session/prompt", first); err != nil {
					t.Fatal(err)
				}
			}
			if m := e.waitStateWithin(ws.ID, id, inject.Confirmed, openCodeRunBudget); m.Session != sid || m.Via != "opencode_run_session" {
				t.Errorf("delivered as %+v", m)
			}
			evs := sse.until(t, 90*time.Second, func(evs []event.Event) bool { return countType(evs, sid, event.TurnComplete) == 2 })
			checkDelivered(t, evs, sid, id, text, "The message's answer.")
			checkOpenCodeAnswers(t, evs, sid, "The first answer.", "The message's answer.")
			if n := carrying(srv, text); n != 1 {
				t.Errorf("the model was asked to answer the message %d times, want once", n)
			}
			for i, r := range srv.MainRequests() {
				if r.LastUserText() == "first question" && r.Contains(text) {
					t.Errorf("the tab's own turn's request %d carried the message: it was run into the busy turn", i)
				}
			}
			if n := framesIn(t, h.DB(), sid, id); n != 1 {
				t.Errorf("OpenCode recorded the message %d times", n)
			}
			waitSession(t, p, ws.ID, sid, func(s map[string]any) bool { return s["status"] == event.StateIdle })
		})
	}
}

// waitFile waits until path exists: a held command has started.
func waitFile(ctx context.Context, t *testing.T, path string) {
	t.Helper()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never appeared", path)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
