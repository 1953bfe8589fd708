package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	codexagent "conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/inject"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// codexWordsEnv is a plain Codex project under a bridge with the bridge's
// Codex hooks installed.
type codexWordsEnv struct {
	*agentEnv
	bin string
	co  codextest.Options
}

func newCodexWordsEnv(t *testing.T, oai *fakemodel.Server) *codexWordsEnv {
	t.Helper()
	bin := codextest.Find(t, codextest.Latest)
	home := t.TempDir()
	dir := filepath.Join(home, "work", "shop")
	co := codextest.Options{Bin: bin, BaseURL: oai.URL(), Home: home, Dir: dir}
	if err := codextest.PrepareHome(co.CodexHome(), dir, oai.URL(), codextest.ModelFor(codextest.Latest)); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "hooks", "install", "--codex", "--home", home); err != nil {
		t.Fatalf("hooks install --codex: %v\n%s", err, out)
	}
	// The bridge's own `codex exec resume` finds the fake provider's key
	// in its environment, and the binary on PATH.
	env := []string{codextest.KeyEnv + "=test-key", "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	p := startBridgeWith(t, home, 0, env, "--headless")
	e := &agentEnv{t: t, home: home, dir: dir, p: p, cfg: config{Addr: strings.TrimPrefix(p.base, "http://")}}
	e.cfg.Home = home
	if err := e.cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	return &codexWordsEnv{agentEnv: e, bin: bin, co: co}
}

// heldShell is a Codex model whose first reply runs a shell command the
// test holds open until release, then says replies, one a turn.
func heldShell(t testing.TB, replies ...string) (oai *fakemodel.Server, release func()) {
	t.Helper()
	gate := filepath.Join(t.TempDir(), "gate")
	held := "while [ ! -e " + gate + " ]; do sleep 0.05; done; echo opened"
	turns := []fakemodel.Turn{fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
		return []fakemodel.Block{fakemodel.Text("Running the long check."), fakemodel.Shell(r.ToolNames(), held)}
	})}
	for _, text := range replies {
		turns = append(turns, fakemodel.Reply(fakemodel.Text(text)))
	}
	release = func() {
		if err := os.WriteFile(gate, nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(release) // a test that fails early must not leave Codex waiting
	return fakemodel.NewTest(t, turns...), release
}

// postTo queues a message for one session of a workspace.
func (e *codexWordsEnv) postTo(ws, session, text string) string {
	e.t.Helper()
	var res struct{ ID, Status string }
	if err := apiCall(context.Background(), e.cfg, http.MethodPost, "/workspace/"+ws+"/session/messages",
		map[string]string{"message": text, "session_id": session}, &res); err != nil {
		e.t.Fatal(err)
	}
	if res.Status != "queued" {
		e.t.Fatalf("posted message is %s", res.Status)
	}
	return res.ID
}

// appItems returns the items of the app server's item/completed
// notifications, decoded.
func appItems(t testing.TB, msgs []codextest.Message, typ string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, m := range msgs {
		if m.Method != "item/completed" {
			continue
		}
		var p struct{ Item map[string]any }
		if err := json.Unmarshal(m.Params, &p); err != nil {
			t.Fatal(err)
		}
		if p.Item["type"] == typ {
			out = append(out, p.Item)
		}
	}
	return out
}

// TestWordsCodexStopHook: a message for a busy Codex 0.169 session, driven
// the way a UI drives Codex (its app server), reaches it from the bridge's
// Stop hook. Codex shows it as a hook prompt holding the framed message,
// and the hook run as "blocked" with the message as its feedback — no
// error, no warning. It is no user message: a UI that shows only those
// shows Codex answering.
func TestWordsCodexStopHook(t *testing.T) {
	oai, release := heldShell(t, "The check passed.", answer)
	e := newCodexWordsEnv(t, oai)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	app, thread := codextest.StartAppThread(ctx, t, e.co, e.dir, "never", "danger-full-access")
	if err := app.StartTurn(ctx, thread, "run the long check"); err != nil {
		t.Fatal(err)
	}
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir && w.Status == event.StateWorking })
	id := e.postTo(ws.ID, thread, panelWords)
	release()
	if _, err := app.Wait(ctx, "turn/completed"); err != nil {
		t.Fatal(err)
	}
	if _, err := oai.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Contains(panelWords) }); err != nil {
		t.Fatal(err)
	}
	if m := e.waitState(ws.ID, id, inject.Confirmed); m.Via != "stop" || m.Session != thread {
		t.Fatalf("delivered as %+v", m)
	}

	msgs := app.Messages()
	framed := inject.Frame(inject.Message{ID: id, Text: panelWords})
	prompts := appItems(t, msgs, "hookPrompt")
	if len(prompts) != 1 || !strings.Contains(mustJSONString(prompts[0]["fragments"]), mustJSONString(framed)) {
		t.Errorf("hook prompts: %v, want one holding %q", prompts, framed)
	}
	for _, u := range appItems(t, msgs, "userMessage") {
		if strings.Contains(mustJSONString(u), panelWords) {
			t.Errorf("Codex now shows the message as a user message (update README): %v", u)
		}
	}
	var runs []string
	for _, m := range msgs {
		if m.Method != "hook/completed" {
			continue
		}
		var p struct {
			Run struct {
				Status  string
				Entries []struct{ Kind, Text string }
			}
		}
		json.Unmarshal(m.Params, &p)
		runs = append(runs, p.Run.Status)
		for _, en := range p.Run.Entries {
			if en.Kind != "feedback" || en.Text != framed {
				t.Errorf("hook run entry %+v, want only the message as feedback", en)
			}
		}
	}
	if strings.Join(runs, " ") != "blocked completed" {
		t.Errorf("Stop hook runs ended %v, want blocked (the message), then completed", runs)
	}
	e.shownOnce(ws.ID, id, panelWords)
}

// TestWordsCodexStopHookExecJSON: the same route under `codex exec --json`,
// whose JSON lines are Codex's stream-json: they hold no user input at all,
// so neither the words nor an error line appear.
func TestWordsCodexStopHookExecJSON(t *testing.T) {
	oai, release := heldShell(t, "The check passed.", answer)
	e := newCodexWordsEnv(t, oai)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	co := e.co
	co.Prompt, co.Args = "run the long check", []string{"--json"}
	cmd, err := codextest.Command(ctx, co)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir && w.Status == event.StateWorking })
	thread := codextest.ThreadID(codextest.Rollouts(t, co.CodexHome())[0])
	id := e.postTo(ws.ID, thread, panelWords)
	release()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("codex exec: %v\n%s", err, stderr.String())
	}
	if m := e.waitState(ws.ID, id, inject.Confirmed); m.Via != "stop" {
		t.Fatalf("delivered as %+v", m)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var l struct {
			Type string
			Item struct{ Type string }
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("codex exec --json printed %q: %v", line, err)
		}
		types = append(types, strings.TrimSuffix(l.Type+":"+l.Item.Type, ":"))
		if strings.Contains(line, panelWords) || l.Type == "error" || l.Item.Type == "error" {
			t.Errorf("codex exec --json printed %s (update README)", line)
		}
	}
	t.Logf("codex exec --json printed %v", types)
	e.shownOnce(ws.ID, id, panelWords)
}

func mustJSONString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestWordsCodexResume: a message for an idle Codex 0.169 session is a new
// turn by `codex exec resume`, its prompt the framed message. Codex records
// it as the person's own message: reading the thread back, as a UI does,
// gives a user message with the bridge's header line, then the words.
func TestWordsCodexResume(t *testing.T) {
	oai := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("The page looks fine.")), fakemodel.Reply(fakemodel.Text(answer)))
	e := newCodexWordsEnv(t, oai)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	co := e.co
	co.Prompt = "check the page"
	if _, err := codextest.Run(ctx, co); err != nil {
		t.Fatal(err)
	}
	thread := codextest.ThreadID(codextest.Rollouts(t, co.CodexHome())[0])
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir && w.Status == event.StateIdle })
	id := e.postTo(ws.ID, thread, panelWords)
	if _, err := oai.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Contains(panelWords) }); err != nil {
		t.Fatal(err)
	}
	if m := e.waitState(ws.ID, id, inject.Confirmed); m.Via != codexagent.ViaResume {
		t.Fatalf("delivered as %+v", m)
	}

	app, err := codextest.StartAppServer(ctx, e.co)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	res, err := app.Call(ctx, "thread/read", map[string]any{"threadId": thread, "includeTurns": true})
	if err != nil {
		t.Fatal(err)
	}
	var read struct {
		Thread struct {
			Turns []struct {
				Items []map[string]any
			}
		}
	}
	if err := json.Unmarshal(res, &read); err != nil {
		t.Fatal(err)
	}
	framed := inject.Frame(inject.Message{ID: id, Text: panelWords})
	var users []string
	for _, turn := range read.Thread.Turns {
		for _, it := range turn.Items {
			if it["type"] == "userMessage" {
				users = append(users, mustJSONString(it["content"]))
			}
		}
	}
	if len(users) != 2 || !strings.Contains(users[1], mustJSONString(framed)) {
		t.Errorf("the thread's user messages: %v, want the second to be %q", users, framed)
	}
	e.shownOnce(ws.ID, id, panelWords)
}
