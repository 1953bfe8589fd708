package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/inject"
	"conductorbridge/testkit/fakemodel"
	"conductorbridge/testkit/opencodetest"
)

// openCodeRunBudget is how long a message delivered by `opencode run
// --session` may take to be confirmed: the run takes 15-20 s of CPU before
// it writes the message, 70-100 s of wall time with two suites side by
// side (load 20-26), where waitState's 60 s failed in both copies. The
// budget is for a hung run, not a slow one.
const openCodeRunBudget = 5 * time.Minute

// openCodeBridgeEnv is what the bridge's own `opencode run` needs to reach
// the test's OpenCode: the binary on PATH, and the home's configuration
// and database (its XDG folders; the state folder stays the bridge's), and
// its npm kept offline as the test's own runs are.
func openCodeBridgeEnv(h *opencodetest.Home, bin string) []string {
	env := []string{"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, kv := range h.Environ() {
		if (strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "XDG_STATE_HOME=")) || strings.HasPrefix(kv, "OPENCODE_") || strings.HasPrefix(kv, "npm_config_") {
			env = append(env, kv)
		}
	}
	return env
}

// postFor posts a message for one session of a workspace and returns its id.
func postFor(t *testing.T, p *bridgeProc, ws, session, text string) string {
	t.Helper()
	cfg := config{Addr: strings.TrimPrefix(p.base, "http://")}
	cfg.Home = p.home
	must(t, cfg.resolve())
	var res struct {
		ID, Status string
		SessionID  string `json:"session_id"`
	}
	if err := apiCall(context.Background(), cfg, http.MethodPost, "/workspace/"+ws+"/session/messages",
		map[string]string{"message": text, "session_id": session}, &res); err != nil {
		t.Fatalf("post %q: %v", text, err)
	}
	if res.Status != inject.Queued || res.SessionID != session {
		t.Fatalf("posted: %+v", res)
	}
	return res.ID
}

// framesIn counts the person's messages in OpenCode's own record of a
// session (its part table) that carry the bridge's message id.
func framesIn(t *testing.T, db, session, id string) int {
	t.Helper()
	var n int
	queryOpenCode(t, db, &n, `SELECT count(*) FROM part p JOIN message m ON m.id = p.message_id
		WHERE p.session_id = ? AND json_extract(m.data, '$.role') = 'user' AND json_extract(p.data, '$.text') LIKE ?`,
		session, "%"+id+"%")
	return n
}

// checkDelivered checks a stream after a message reached an OpenCode
// session: the person's words once, under the message's id, and the
// answer to it once.
func checkDelivered(t *testing.T, evs []event.Event, session, msgID, text, answer string) {
	t.Helper()
	users, answers := 0, 0
	for _, ev := range evs {
		if ev.SessionID != session {
			continue
		}
		if ev.Type == event.User && ev.MessageID == msgID {
			users++
			if ev.Content != text {
				t.Errorf("the delivered message streams as %q, want the person's words %q", ev.Content, text)
			}
		}
		if ev.Type == event.Assistant && ev.Content == answer {
			answers++
		}
	}
	if users != 1 || answers != 1 {
		t.Errorf("the message streamed %d times and its answer %d, want once each: %v", users, answers, kinds(evs))
	}
}

// TestOpenCodeIdleSessionTakesAMessage: a message posted for an idle
// OpenCode session (run in a plain folder) is run into it by the bridge's
// own `opencode run --session`: the model's next request carries it, the
// record confirms it, the person's words and the answer stream once, and
// a restarted bridge replays them once and sends nothing again.
func TestOpenCodeIdleSessionTakesAMessage(t *testing.T) {
	bin := opencodetest.Find(t)
	srv := opencodetest.Server(t,
		fakemodel.Reply(fakemodel.Text("The first answer.")),
		fakemodel.Reply(fakemodel.Text("The message's answer.")))
	h := opencodetest.NewHome(t, srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	first, err := h.Run(ctx, bin, "first question")
	if err != nil {
		t.Fatal(err)
	}
	sid := first.Session
	env := openCodeBridgeEnv(h, bin)
	p := startBridgeWith(t, h.Dir, 0, env, "--headless", "--opencode-db", h.DB())
	ws := p.waitFor(func(a apiWorkspace) bool { return sameDir(a.Directory, h.Work) })
	sse := openStream(t, p, ws.ID, 0)
	sse.until(t, 60*time.Second, func(evs []event.Event) bool { return countType(evs, sid, event.TurnComplete) == 1 })
	s := waitSession(t, p, ws.ID, sid, func(s map[string]any) bool { return s["status"] == event.StateIdle })
	if s["messages_blocked"] != nil {
		t.Fatalf("an idle OpenCode session is listed as blocked: %v", s["messages_blocked"])
	}

	const text = "opencode: check the footer"
	id := postFor(t, p, ws.ID, sid, text)
	if _, err := srv.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Contains(text) }); err != nil {
		t.Fatalf("OpenCode's model never got the message: %v\n%s", err, p.log)
	}
	e := &agentEnv{t: t, p: p}
	if m := e.waitStateWithin(ws.ID, id, inject.Confirmed, openCodeRunBudget); m.Session != sid || m.Via != "opencode_run_session" {
		t.Errorf("delivered as %+v", m)
	}
	evs := sse.until(t, 90*time.Second, func(evs []event.Event) bool { return countType(evs, sid, event.TurnComplete) == 1 })
	checkDelivered(t, evs, sid, id, text, "The message's answer.")

	p.kill(syscall.SIGTERM)
	p = startBridgeWith(t, h.Dir, 0, env, "--headless", "--opencode-db", h.DB())
	e.p = p
	evs = openStream(t, p, ws.ID, 0).until(t, 60*time.Second, func(evs []event.Event) bool {
		return countType(evs, sid, event.TurnComplete) >= 2
	})
	checkDelivered(t, evs, sid, id, text, "The message's answer.")
	checkOpenCodeAnswers(t, evs, sid, "The first answer.", "The message's answer.")
	if m := e.messages(ws.ID)[id]; m.State != inject.Confirmed {
		t.Errorf("after the restart the message is %+v", m)
	}
	if n := framesIn(t, h.DB(), sid, id); n != 1 {
		t.Errorf("OpenCode recorded the message %d times", n)
	}
}

// TestOpenCodeBusySessionMessageWaitsUntilIdle: a message posted while an
// OpenCode turn runs (its command held open) is taken (202), not run into
// the busy session (OpenCode would run a second turn beside the first),
// waits across a bridge restart, and once the turn ends is run into the
// session exactly once.
func TestOpenCodeBusySessionMessageWaitsUntilIdle(t *testing.T) {
	bin := opencodetest.Find(t)
	tmp := t.TempDir()
	started, release := filepath.Join(tmp, "started"), filepath.Join(tmp, "release")
	srv := opencodetest.Server(t,
		fakemodel.Reply(fakemodel.Bash(fmt.Sprintf("touch %s; while [ ! -f %s ]; do sleep 0.1; done; echo released", started, release))),
		fakemodel.Reply(fakemodel.Text("The first answer.")),
		fakemodel.Reply(fakemodel.Text("The message's answer.")))
	h := opencodetest.NewHome(t, srv.URL())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env := openCodeBridgeEnv(h, bin)
	p := startBridgeWith(t, h.Dir, 0, env, "--headless", "--opencode-db", h.DB())

	ran := make(chan error, 1)
	go func() {
		_, err := h.Run(ctx, bin, "first question")
		ran <- err
	}()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-ran:
			t.Fatalf("the first run ended before its command ran: %v", err)
		case <-ctx.Done():
			t.Fatal("the first run's command never ran")
		case <-time.After(50 * time.Millisecond):
		}
	}
	ws := p.waitFor(func(a apiWorkspace) bool { return sameDir(a.Directory, h.Work) && a.SessionID != "" })
	sid := ws.SessionID
	s := waitSession(t, p, ws.ID, sid, func(s map[string]any) bool { return s["status"] == event.StateWorking })
	if s["messages_blocked"] != nil {
		t.Fatalf("a busy OpenCode session is listed as blocked: %v", s["messages_blocked"])
	}
	const text = "opencode: after this turn, the header"
	id := postFor(t, p, ws.ID, sid, text)
	// The bridge looked at the busy session with the message waiting and
	// left it queued (its log says so) …
	waitLogged(t, p, `"session":"`+sid+`"`, "a message waits while the session is busy")

	// … and restarted while the message waits: it still waits, once.
	p.kill(syscall.SIGTERM)
	p = startBridgeWith(t, h.Dir, 0, env, "--headless", "--opencode-db", h.DB())
	e := &agentEnv{t: t, p: p}
	if m := e.messages(ws.ID)[id]; m.State != inject.Queued {
		t.Fatalf("while the turn runs the message is %+v", m)
	}
	sse := openStream(t, p, ws.ID, 0)
	must(t, os.WriteFile(release, nil, 0o644))
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	if m := e.waitStateWithin(ws.ID, id, inject.Confirmed, openCodeRunBudget); m.Session != sid || m.Via != "opencode_run_session" {
		t.Errorf("delivered as %+v", m)
	}
	evs := sse.until(t, 90*time.Second, func(evs []event.Event) bool { return countType(evs, sid, event.TurnComplete) >= 2 })
	checkDelivered(t, evs, sid, id, text, "The message's answer.")
	checkOpenCodeAnswers(t, evs, sid, "The first answer.", "The message's answer.")
	reqs := srv.MainRequests()
	for i, r := range reqs[:2] {
		if r.Contains(text) {
			t.Errorf("the busy turn's request %d carried the message: it was run into the busy session", i)
		}
	}
	if n := framesIn(t, h.DB(), sid, id); n != 1 {
		t.Errorf("OpenCode recorded the message %d times", n)
	}
}

// waitLogged waits until one line of the bridge's log holds every one of
// parts.
func waitLogged(t testing.TB, p *bridgeProc, parts ...string) {
	t.Helper()
	waitLoggedTimes(t, p, 1, parts...)
}

// waitLoggedTimes waits until n lines of the bridge's log each hold every
// one of parts.
func waitLoggedTimes(t testing.TB, p *bridgeProc, n int, parts ...string) {
	t.Helper()
	cfg := config{Addr: strings.TrimPrefix(p.base, "http://")}
	cfg.Home = p.home
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		seen := 0
		logs, _ := filepath.Glob(filepath.Join(cfg.LogDir, "*"))
		for _, f := range logs {
			b, _ := os.ReadFile(f)
			for _, line := range strings.Split(string(b), "\n") {
				all := true
				for _, part := range parts {
					all = all && strings.Contains(line, part)
				}
				if all {
					seen++
				}
			}
		}
		if seen >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the bridge logged %q %d times, not %d:\n%s", parts, seen, n, p.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkOpenCodeAnswers checks each answer streamed once.
func checkOpenCodeAnswers(t *testing.T, evs []event.Event, session string, answers ...string) {
	t.Helper()
	texts := map[string]int{}
	for _, ev := range evs {
		if ev.SessionID == session && ev.Type == event.Assistant {
			texts[ev.Content]++
		}
	}
	for _, a := range answers {
		if texts[a] != 1 {
			t.Errorf("%q streamed %d times, want once (all: %v)", a, texts[a], texts)
		}
	}
}
