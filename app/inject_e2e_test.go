package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
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
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// agentEnv is a fake home with a workspace whose hooks point at a bridge.
type agentEnv struct {
	t    testing.TB
	home string
	dir  string
	bin  string
	p    *bridgeProc
	cfg  config
}

func newAgentEnv(t testing.TB) *agentEnv {
	t.Helper()
	e := newBareEnv(t)
	e.bin = claudetest.Find(t, claudetest.Latest)
	if out, err := runCLI(t, "hooks", "install", e.dir, "--home", e.home); err != nil {
		t.Fatalf("hooks install: %v\n%s", err, out)
	}
	return e
}

// newBareEnv is a fake home with its workspace folder and the config a
// bridge there would resolve: no agent binary, no hooks.
func newBareEnv(t testing.TB) *agentEnv {
	t.Helper()
	e := &agentEnv{t: t, home: t.TempDir()}
	e.dir = filepath.Join(e.home, "work", "demo")
	if err := os.MkdirAll(e.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e.cfg = config{Addr: "127.0.0.1:0"}
	e.cfg.Home = e.home
	if err := e.cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *agentEnv) start(port int) {
	e.p = startBridgeProc(e.t, e.home, port)
	e.cfg.Addr = strings.TrimPrefix(e.p.base, "http://")
}

// post queues a message through the API, as the side panel does.
func (e *agentEnv) post(ws, text string) string {
	e.t.Helper()
	var res struct{ ID, Status string }
	if err := apiCall(context.Background(), e.cfg, http.MethodPost, "/workspace/"+ws+"/session/messages", map[string]string{"message": text}, &res); err != nil {
		e.t.Fatal(err)
	}
	if res.Status != "queued" {
		e.t.Fatalf("posted message is %s", res.Status)
	}
	return res.ID
}

func (e *agentEnv) messages(ws string) map[string]inject.Message {
	var list struct{ Messages []inject.Message }
	if err := getJSON(context.Background(), e.p.cl(), "/workspace/"+ws+"/session/messages", e.p.token(), &list); err != nil {
		e.t.Fatal(err)
	}
	out := map[string]inject.Message{}
	for _, m := range list.Messages {
		out[m.ID] = m
	}
	return out
}

// waitState waits until message id of ws is in state.
func (e *agentEnv) waitState(ws, id, state string) inject.Message {
	e.t.Helper()
	return e.waitStateWithin(ws, id, state, 60*time.Second)
}

// waitStateWithin is waitState with a budget of its own: for a delivery
// that runs a whole agent first (`opencode run --session`).
func (e *agentEnv) waitStateWithin(ws, id, state string, d time.Duration) inject.Message {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if m := e.messages(ws)[id]; m.State == state {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("message %s never %s: %+v", id, state, e.messages(ws)[id])
	return inject.Message{}
}

func (e *agentEnv) workspace() apiWorkspace {
	return e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir })
}

// session starts a long-lived Claude Code agent in the workspace, as
// Conductor runs it, against fm; it is stopped when the test ends. The
// context bounds the test's waits.
func (e *agentEnv) session(fm *fakemodel.Server, o claudetest.Options) (context.Context, *claudetest.Session) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	e.t.Cleanup(cancel)
	o.Bin, o.BaseURL, o.Home, o.Dir = e.bin, fm.URL(), e.home, e.dir
	s, err := claudetest.Start(ctx, o)
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { endSession(s) })
	return ctx, s
}

// run runs `claude -p prompt` (Claude Code, one turn) in the workspace
// against fm and returns its session id.
func (e *agentEnv) run(fm *fakemodel.Server, prompt string) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := claudetest.Run(ctx, claudetest.Options{Bin: e.bin, BaseURL: fm.URL(), Home: e.home, Dir: e.dir, Prompt: prompt})
	if err != nil {
		e.t.Fatalf("claude -p %q: %v\n%s", prompt, err, res.Stderr)
	}
	return res.SessionID
}

// endSession stops an agent the way Conductor does, with SIGTERM: closing
// its stdin makes Claude Code wait up to 30 s for a pending rewake hook.
func endSession(s *claudetest.Session) {
	syscall.Kill(s.Pid(), syscall.SIGTERM)
	s.Close()
}

// deliveries counts how often the transcript shows message id reaching
// the agent, as the bridge streams it from the session's start.
func (e *agentEnv) deliveries(ws, id string) int {
	e.t.Helper()
	n := func(evs []event.Event) int {
		return countEvents(evs, func(ev event.Event) bool { return ev.Type == event.User && ev.MessageID == id })
	}
	// A message is confirmed while its transcript line is parsed, a moment
	// before the event is published: wait for the event, then for whatever
	// else the workspace had by then.
	evs := openStream(e.t, e.p, ws, 0).until(e.t, 10*time.Second, func(evs []event.Event) bool {
		return n(evs) > 0 && evs[len(evs)-1].ID >= e.workspaceByID(ws).LastEventID
	})
	return n(evs)
}

func (e *agentEnv) workspaceByID(id string) apiWorkspace {
	return e.p.waitFor(func(w apiWorkspace) bool { return w.ID == id })
}

// versionRead waits until the bridge has read the agent's version from
// the transcript: the PostToolUse route depends on it (a session whose
// version is not known yet gets its messages at the end of the turn).
func (e *agentEnv) versionRead() apiWorkspace {
	e.t.Helper()
	return e.p.waitFor(func(w apiWorkspace) bool {
		return w.Directory == e.dir && w.LastEventID > 0 && len(w.Sessions) > 0 && w.Sessions[0].Version != ""
	})
}

// startBusy starts the bridge and a Claude Code session, sends it prompt
// and returns once the model has the request (the turn is under way)
// and the bridge lists the session with its version.
func (e *agentEnv) startBusy(fm *fakemodel.Server, prompt string) (context.Context, *claudetest.Session, apiWorkspace) {
	e.t.Helper()
	e.start(0)
	ctx, s := e.session(fm, claudetest.Options{})
	s.Send(prompt)
	waitRequest(e.t, fm, prompt)
	return ctx, s, e.versionRead()
}

// startAnswered starts the bridge and a Claude Code session, sends it
// prompt and returns once the session has printed the turn's result.
func (e *agentEnv) startAnswered(fm *fakemodel.Server, prompt string) (context.Context, *claudetest.Session, apiWorkspace) {
	e.t.Helper()
	e.start(0)
	ctx, s := e.session(fm, claudetest.Options{})
	s.Send(prompt)
	if _, err := s.WaitResult(ctx); err != nil {
		e.t.Fatal(err)
	}
	return ctx, s, e.workspace()
}

// gate is a shell command for the agent's tool that runs until open is
// called. A test that must act while a tool runs holds the tool open
// instead of betting on a sleep being long enough on a loaded machine.
func gate(t testing.TB) (cmd string, open func()) {
	t.Helper()
	dir := t.TempDir()
	f, script := filepath.Join(dir, "open"), filepath.Join(dir, "gate.sh")
	body := fmt.Sprintf("#!/bin/sh\nwhile [ ! -e '%s' ]; do sleep 0.05; done\necho opened\n", f)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return "sh " + script, func() {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func waitRequest(t testing.TB, fm *fakemodel.Server, text string) fakemodel.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := fm.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Kind == fakemodel.KindMain && r.ContainsText(text) })
	if err != nil {
		t.Fatalf("the model never got %q: %v", text, err)
	}
	return r
}

// TestInjectMidTurn queues a message while the agent runs a tool; the
// PostToolUse hook hands it over and the model's next request in the same
// turn carries it.
func TestInjectMidTurn(t *testing.T) {
	e := newAgentEnv(t)
	tool, release := gate(t)
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Bash(tool)),
		fakemodel.Reply(fakemodel.Text("Switching to the mobile view.")),
	)
	ctx, s, ws := e.startBusy(fm, "check the page")
	c := openStream(t, e.p, ws.ID, 0)

	const msg = "no, test the mobile view"
	sent := time.Now()
	id := e.post(ws.ID, msg)
	release()
	r := waitRequest(t, fm, msg)
	t.Logf("POST → model request (PostToolUse, includes the running tool): %v", time.Since(sent))
	if n := len(fm.MainRequests()); r.Seq != fm.MainRequests()[1].Seq {
		t.Errorf("message arrived in request %d of %d, want the turn's second request", r.Seq, n)
	}
	if _, err := s.WaitResult(ctx); err != nil {
		t.Fatal(err)
	}
	m := e.waitState(ws.ID, id, inject.Confirmed)
	if m.Via != "post_tool_use" {
		t.Errorf("delivered via %q", m.Via)
	}
	t.Logf("hook hand-over → model request: %v", r.Time.Sub(m.Delivered))
	evs := c.until(t, 30*time.Second, func(evs []event.Event) bool {
		for _, e := range evs {
			if e.Type == event.User && e.MessageID == id {
				return true
			}
		}
		return false
	})
	last := evs[len(evs)-1]
	if last.Content != msg {
		t.Errorf("stream shows the injected message as %q", last.Content)
	}
	if n := e.deliveries(ws.ID, id); n != 1 {
		t.Errorf("message reached the agent %d times", n)
	}
	e.secretsNotLogged()
}

// secretsNotLogged checks that neither the API token nor the hook secret
// appears in the bridge's logs.
func (e *agentEnv) secretsNotLogged() {
	e.t.Helper()
	logs, _ := filepath.Glob(filepath.Join(e.cfg.LogDir, "*"))
	if len(logs) == 0 {
		e.t.Fatal("no log file")
	}
	for _, name := range []string{tokenFile, hookSecretFile} {
		secret, err := os.ReadFile(filepath.Join(e.cfg.StateDir, name))
		if err != nil {
			e.t.Fatal(err)
		}
		for _, f := range logs {
			b, _ := os.ReadFile(f)
			if strings.Contains(string(b), strings.TrimSpace(string(secret))) {
				e.t.Errorf("%s appears in %s", name, f)
			}
		}
	}
}

// waitRewakeHooks waits until the agent's nth asyncRewake hook has called
// the bridge (the bridge logs each hook call at debug level): it waits
// for a message from then on.
func (e *agentEnv) waitRewakeHooks(n int) {
	e.t.Helper()
	waitLoggedTimes(e.t, e.p, n, `"hook":"rewake"`, `"message":"hook call"`)
}

// TestInjectWakesIdleAgent sends a message to an agent that finished its
// turn and sits idle, as Conductor runs it (stream-json, stdin open): the
// asyncRewake hook wakes it with nothing written to its stdin.
func TestInjectWakesIdleAgent(t *testing.T) {
	e := newAgentEnv(t)
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Text("Ready.")),
		fakemodel.Reply(fakemodel.Text("On it: mobile view.")),
	)
	ctx, s, ws := e.startAnswered(fm, "hello")
	e.waitRewakeHooks(1) // the rewake hook starts after the turn

	const msg = "please test the mobile view"
	sent := time.Now()
	id := e.post(ws.ID, msg)
	waitRequest(t, fm, msg)
	t.Logf("POST → model request (idle wake): %v", time.Since(sent))
	m := e.waitState(ws.ID, id, inject.Confirmed)
	if m.Via != "rewake" {
		t.Errorf("delivered via %q", m.Via)
	}
	if n := e.deliveries(ws.ID, id); n != 1 {
		t.Errorf("message reached the agent %d times", n)
	}

	// From a terminal: send waits until Claude has it.
	if _, err := s.WaitResult(ctx); err != nil {
		t.Fatal(err)
	}
	e.waitRewakeHooks(2) // the next rewake hook connects after the turn
	out, err := runCLI(t, "send", "--home", e.home, "--addr", e.cfg.Addr, "--wait", "demo", "and the tablet view")
	if err != nil || !strings.Contains(out, "confirmed") {
		t.Errorf("send --wait: %v\n%s", err, out)
	}
	waitRequest(t, fm, "and the tablet view")
}

// TestBridgeDownAgentUnaffected runs a whole turn with the hooks installed
// and the bridge stopped: the agent finishes normally, and its own hooks
// (in the same settings file) keep running, after install and after
// uninstall.
func TestBridgeDownAgentUnaffected(t *testing.T) {
	e := newAgentEnv(t)
	e.start(0)
	e.p.kill(syscall.SIGTERM)

	// The user's own Stop hook, next to the bridge's.
	marker := filepath.Join(e.home, "user-hook-ran")
	settings := filepath.Join(e.dir, ".claude", "settings.local.json")
	b, _ := os.ReadFile(settings)
	var cfg map[string]any
	json.Unmarshal(b, &cfg)
	hooks := cfg["hooks"].(map[string]any)
	hooks["Stop"] = append([]any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "touch " + marker}}}}, hooks["Stop"].([]any)...)
	b, _ = json.Marshal(cfg)
	os.WriteFile(settings, b, 0o644)

	turn := func(label string) {
		t.Helper()
		os.Remove(marker)
		fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Bash("echo hi")), fakemodel.Reply(fakemodel.Text("done")))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := claudetest.Run(ctx, claudetest.Options{Bin: e.bin, BaseURL: fm.URL(), Home: e.home, Dir: e.dir, Prompt: "go"})
		if err != nil {
			t.Fatalf("%s: agent turn failed: %v", label, err)
		}
		t.Logf("%s: a full turn took %v", label, res.Duration)
		if res.Output.IsError || res.Output.Result != "done" {
			t.Errorf("%s: result %+v", label, res.Output)
		}
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("%s: the user's own Stop hook did not run", label)
		}
	}
	turn("bridge stopped, hooks installed")
	if out, err := runCLI(t, "hooks", "uninstall", e.dir, "--home", e.home); err != nil {
		t.Fatalf("uninstall: %v %s", err, out)
	}
	b, _ = os.ReadFile(settings)
	if strings.Contains(string(b), "conductor-bridge") || !strings.Contains(string(b), "touch ") {
		t.Errorf("uninstall left:\n%s", b)
	}
	turn("after uninstall")
}

// TestInjectSurvivesKillNine kills the bridge with SIGKILL right after it
// handed one message to a hook, with another queued, and restarts it; a
// third message is on disk as handed out to a hook that never got it (the
// bridge died between its write and its answer). Each message reaches the
// agent exactly once.
func TestInjectSurvivesKillNine(t *testing.T) {
	e := newAgentEnv(t)
	tool1, release1 := gate(t)
	tool2, release2 := gate(t)
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Bash(tool1)),
		fakemodel.Reply(fakemodel.Bash(tool2)),
		fakemodel.Reply(fakemodel.Text("Did both.")),
		fakemodel.Reply(fakemodel.Text("And the third.")),
	)
	port, _ := freePort()
	e.start(port)
	_, s := e.session(fm, claudetest.Options{})
	s.Send("work on the page")
	waitRequest(t, fm, "work on the page")
	ws := e.versionRead()
	m1 := e.post(ws.ID, "first: test the mobile view")
	m2 := e.post(ws.ID, "second: check the footer")
	release1()
	e.waitState(ws.ID, m1, inject.Delivered) // the PostToolUse hook after the first tool took it
	e.p.kill(syscall.SIGKILL)

	// The crash window: a message written as handed out, never answered.
	queueFile := filepath.Join(e.cfg.StateDir, "queue", hexName(ws.ID))
	var msgs []inject.Message
	b, err := os.ReadFile(queueFile)
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &msgs)
	m3 := inject.Message{ID: "m-0000000000c3", Workspace: ws.ID, Text: "third: and the header", State: inject.Delivered,
		Created: time.Now().UTC(), Delivered: time.Now().UTC(), Via: "post_tool_use"}
	b, _ = json.Marshal(append(msgs, m3))
	os.WriteFile(queueFile, b, 0o600)

	e.start(port) // while the second tool runs
	e.versionRead()
	release2()
	waitRequest(t, fm, "second: check the footer")
	waitRequest(t, fm, "third: and the header")
	for _, id := range []string{m1, m2, m3.ID} {
		e.waitState(ws.ID, id, inject.Confirmed)
		if n := e.deliveries(ws.ID, id); n != 1 {
			t.Errorf("message %s reached the agent %d times", id, n)
		}
	}
}

func hexName(ws string) string { return hex.EncodeToString([]byte(ws)) + ".json" }

// TestInjectOlderVersions delivers a message sent mid-turn to Claude Code
// 2.0 and 1.0, whose transcripts and hooks differ: 1.0 takes it after the
// tool call, 2.0 (which would not record that) at the end of the turn.
// Either way it arrives once and is confirmed.
func TestInjectOlderVersions(t *testing.T) {
	for _, tt := range []struct{ version, via string }{{"2.0.77", "stop"}, {"1.0.128", "post_tool_use"}} {
		t.Run(tt.version, func(t *testing.T) {
			e := newAgentEnv(t)
			e.bin = claudetest.Find(t, tt.version)
			tool, release := gate(t)
			fm := fakemodel.NewTest(t,
				fakemodel.Reply(fakemodel.Bash(tool)),
				fakemodel.Reply(fakemodel.Text("Done.")),
				fakemodel.Reply(fakemodel.Text("Got your message.")),
			)
			_, _, ws := e.startBusy(fm, "start")
			const msg = "also check the footer"
			id := e.post(ws.ID, msg)
			release()
			waitRequest(t, fm, msg)
			m := e.waitState(ws.ID, id, inject.Confirmed)
			if m.Via != tt.via {
				t.Errorf("delivered via %q, want %q", m.Via, tt.via)
			}
			if n := e.deliveries(ws.ID, id); n != 1 {
				t.Errorf("message reached the agent %d times", n)
			}
		})
	}
}

// TestPermissionPromptShowsNeedsInput runs Claude Code the way a host that
// asks the person for permissions does (--permission-prompt-tool stdio)
// and leaves its permission request unanswered: Claude Code's Notification
// hook fires (after about 6 s) and the workspace shows needs_input.
func TestPermissionPromptShowsNeedsInput(t *testing.T) {
	e := newAgentEnv(t)
	fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.ToolUse("Write", map[string]any{
		"file_path": filepath.Join(e.dir, "x.txt"), "content": "x"})))
	e.start(0)
	_, s := e.session(fm, claudetest.Options{AllowedTools: []string{"Bash"}, Args: []string{"--permission-prompt-tool", "stdio"}})
	s.Send("write a file")
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.Directory == e.dir && w.Status == "needs_input" })
	c := openStream(t, e.p, ws.ID, 0)
	evs := c.until(t, 10*time.Second, func(evs []event.Event) bool {
		return len(evs) > 0 && evs[len(evs)-1].ID >= ws.LastEventID
	})
	for _, ev := range evs {
		if ev.Type == event.Status && ev.State == event.StateNeedsInput {
			if ev.Reason != "permission_prompt" {
				t.Errorf("needs_input reason %q", ev.Reason)
			}
			return
		}
	}
	t.Errorf("no needs_input status event: %v", kinds(evs))
}
