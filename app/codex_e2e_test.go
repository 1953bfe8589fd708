package main

import (
	"conductorbridge/benchkit/conductordb"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// conductorDB makes the home's conductor.db from schema.sql and runs
// stmts on it; it returns the open database for later writes, as the
// Conductor app would make them.
func conductorDB(t testing.TB, home string, stmts ...string) *sql.DB {
	t.Helper()
	path := filepath.Join(home, "Library", "Application Support", "com.conductor.app", "conductor.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path}).String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, s := range append([]string{conductordb.Schema(t)}, stmts...) {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("conductor.db: %v", err)
		}
	}
	return db
}

// TestCodexTabBesideClaudeTab runs the real Codex CLI and the real Claude
// Code in one Conductor workspace, one chat tab each, against fake model
// servers. Both stream under their own session_id with their own tool
// names and one priced turn_complete each; the Codex tab is listed with
// its Conductor id; and a message posted to the idle Codex tab reaches the
// Codex model's next request (by `codex exec resume`) and is confirmed from
// the rollout.
func TestCodexTabBesideClaudeTab(t *testing.T) {
	codexBin := codextest.Find(t, codextest.Latest)
	e := newAgentEnv(t)
	const claudeID = "cccccccc-5555-4555-8555-00000000000c"
	oai := fakemodel.NewTest(t, append(codextest.FirstTurn(), fakemodel.Reply(fakemodel.Text("Codex got the message.")))...)
	claude := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Bash("echo from-claude")), fakemodel.Reply(fakemodel.Text("Claude is done.")))
	db := conductorDB(t, e.home, `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'demo', '`+e.dir+`');
INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, branch, state, active_session_id)
	VALUES ('w-demo', 'r1', 'demo', '`+e.dir+`', 'me/demo', 'ready', 's-claude');
INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden)
	VALUES ('s-claude', 'w-demo', 'idle', 'claude', 'Claude tab', '`+claudeID+`', 0);`)

	// The bridge's own `codex exec resume` finds the fake provider's key
	// in its environment, and the binary on PATH.
	env := []string{codextest.KeyEnv + "=test-key", "PATH=" + filepath.Dir(codexBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	e.p = startBridgeWith(t, e.home, 0, env, "--headless")
	e.cfg.Addr = strings.TrimPrefix(e.p.base, "http://")
	ws := e.p.waitFor(func(w apiWorkspace) bool { return w.ID == "w-demo" })

	ctx, tab := e.session(claude, claudetest.Options{SessionID: claudeID})
	tab.Send("work in the Claude tab")
	if _, err := tab.WaitResult(ctx); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	co := codextest.Options{Bin: codexBin, BaseURL: oai.URL(), Home: e.home, Dir: e.dir, Prompt: codextest.FirstPrompt}
	if _, err := codextest.Run(cctx, co); err != nil {
		t.Fatal(err)
	}
	rollouts := codextest.Rollouts(t, co.CodexHome())
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	thread := codextest.ThreadID(rollouts[0])
	// Conductor records the Codex tab with its thread id.
	if _, err := db.Exec(`INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden, model)
		VALUES ('s-codex', 'w-demo', 'idle', 'codex', 'Codex tab', ?, 0, 'gpt-5.5')`, thread); err != nil {
		t.Fatal(err)
	}

	turns := turnsBySession
	sse := openStream(t, e.p, ws.ID, 0)
	evs := sse.until(t, 60*time.Second, func(evs []event.Event) bool {
		n := turns(evs)
		return n[claudeID] == 1 && n[thread] == 1
	})
	tools := map[string][]string{} // session → tool_use name: input
	var failed bool
	for _, ev := range evs {
		if ev.SessionID != claudeID && ev.SessionID != thread {
			t.Errorf("event %d (%s) names session %q", ev.ID, ev.Type, ev.SessionID)
		}
		if ev.SessionID == thread && ev.Agent != "codex" {
			t.Errorf("Codex event %d (%s) has agent %q", ev.ID, ev.Type, ev.Agent)
		}
		if ev.SessionID == claudeID && ev.Agent != "" {
			t.Errorf("Claude event %d has agent %q", ev.ID, ev.Agent)
		}
		switch ev.Type {
		case event.ToolUse:
			tools[ev.SessionID] = append(tools[ev.SessionID], ev.Name+": "+ev.Input)
		case event.ToolResult:
			failed = failed || (ev.SessionID == thread && ev.IsError && strings.Contains(ev.Output, "missing.txt"))
		case event.TurnComplete:
			if !ev.CostKnown || ev.CostUSD <= 0 {
				t.Errorf("turn of %s (model %s) has no known cost: %+v", ev.SessionID, ev.Model, ev)
			}
		}
	}
	if got := strings.Join(tools[claudeID], " | "); got != "Bash: echo from-claude" {
		t.Errorf("Claude tab's tools: %s", got)
	}
	if got := strings.Join(tools[thread], " | "); got != "Bash: echo hello | Bash: seq 1 400 | Bash: cat missing.txt | Edit: greeting.txt" {
		t.Errorf("Codex tab's tools: %s", got)
	}
	if !failed {
		t.Error("the failing command's result is not is_error")
	}
	// The tab's row reaches the listing with the scan its write asks for.
	var sess map[string]map[string]any
	deadline := time.Now().Add(30 * time.Second)
	for {
		sess = (&tabsEnv{agentEnv: e}).sessionsOf(ws.ID)
		c := sess[thread]
		if c != nil && c["agent"] == "codex" && c["conductor_session_id"] == "s-codex" && c["status"] == "idle" && c["title"] == "Codex tab" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Codex tab listed as %v (all: %v)", c, sess)
		}
		time.Sleep(50 * time.Millisecond)
	}

	// A message for the idle Codex tab: 202, then the model's next request.
	var res struct {
		ID, Status string
		SessionID  string `json:"session_id"`
	}
	if err := apiCall(context.Background(), e.cfg, http.MethodPost, "/workspace/"+ws.ID+"/session/messages",
		map[string]string{"message": "codex: check the footer", "session_id": thread}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "queued" || res.SessionID != thread {
		t.Fatalf("posted: %+v", res)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer wcancel()
	if _, err := oai.WaitRequest(wctx, func(r fakemodel.Request) bool { return r.Contains("codex: check the footer") }); err != nil {
		t.Fatalf("the Codex model never got the message: %v\n%s", err, e.p.log)
	}
	m := e.waitState(ws.ID, res.ID, "confirmed")
	if m.Session != thread || m.Via != "codex_exec_resume" {
		t.Errorf("delivered as %+v", m)
	}
	more := sse.until(t, 60*time.Second, func(evs []event.Event) bool { return turns(evs)[thread] == 1 })
	var shown bool
	for _, ev := range more {
		shown = shown || (ev.Type == event.User && ev.SessionID == thread && ev.Content == "codex: check the footer" && ev.MessageID == res.ID)
	}
	if !shown {
		t.Errorf("the stream does not show the person's words for the delivered message: %v", kinds(more))
	}
	for _, r := range claude.MainRequests() {
		if r.ContainsText("check the footer") {
			t.Error("the Claude tab's model got the message for the Codex tab")
		}
	}
}

// TestCodexBusySessionTakesMessageAtItsStopHook runs a plain `codex exec`
// (no Conductor: its folder becomes a workspace of its own) that works on a
// command the test holds open. While it works, a message is refused with a
// 409 and the reason when the bridge's Codex hooks are not installed, and
// queued when they are; once the command returns, the Stop hook hands it to
// Codex, whose model gets it in the same turn, and the rollout confirms it.
func TestCodexBusySessionTakesMessageAtItsStopHook(t *testing.T) {
	codexBin := codextest.Find(t, codextest.Latest)
	home := t.TempDir()
	dir := filepath.Join(home, "work", "shop")
	oai, release := heldShell(t, "The check passed.", "Codex read the message.")
	co := codextest.Options{Bin: codexBin, BaseURL: oai.URL(), Home: home, Dir: dir, Prompt: "run the long check"}
	if err := codextest.PrepareHome(co.CodexHome(), dir, oai.URL(), codextest.ModelFor(codextest.Latest)); err != nil {
		t.Fatal(err)
	}
	hooks := func(verb string) {
		t.Helper()
		if out, err := runCLI(t, "hooks", verb, "--codex", "--home", home); err != nil {
			t.Fatalf("hooks %s --codex: %v\n%s", verb, err, out)
		}
	}
	hooks("install")
	out, err := runCLI(t, "hooks", "status", "--codex", "--home", home)
	if err != nil || !strings.Contains(out, "Stop hook → ") || !strings.Contains(out, "notify → ") {
		t.Fatalf("hooks status --codex: %v\n%s", err, out)
	}
	env := []string{codextest.KeyEnv + "=test-key", "PATH=" + filepath.Dir(codexBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	p := startBridgeWith(t, home, 0, env, "--headless")
	cfg := config{Addr: strings.TrimPrefix(p.base, "http://")}
	cfg.Home = home
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, stderr, done := startCodexRun(t, ctx, co)
	t.Cleanup(func() { release(); <-done })

	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.Status == event.StateWorking })
	var thread string
	for id, s := range (&tabsEnv{agentEnv: &agentEnv{t: t, p: p}}).sessionsOf(ws.ID) {
		if s["agent"] == "codex" {
			thread = id
		}
	}
	if thread == "" || ws.Source != "codex" {
		t.Fatalf("the Codex run's workspace: %+v, no codex session", ws)
	}
	post := func() (int, map[string]any) {
		body := `{"message": "codex: also check the footer", "session_id": "` + thread + `"}`
		req, _ := http.NewRequest(http.MethodPost, p.base+"/workspace/"+ws.ID+"/session/messages", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+p.token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res map[string]any
		json.NewDecoder(resp.Body).Decode(&res)
		return resp.StatusCode, res
	}
	hooks("uninstall")
	if code, res := post(); code != http.StatusConflict || !strings.Contains(fmt.Sprint(res["error"]), "Stop hook is not installed") {
		t.Errorf("busy without hooks: %d %v, want 409 naming the missing hook", code, res)
	}
	hooks("install")
	code, res := post()
	if code != http.StatusAccepted || res["status"] != "queued" {
		t.Fatalf("busy with hooks: %d %v", code, res)
	}
	id := res["id"].(string)
	release()
	if _, err := oai.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Contains("codex: also check the footer") }); err != nil {
		t.Fatalf("the model never got the message: %v\ncodex: %s\nbridge: %s", err, stderr.String(), p.log)
	}
	if err := <-done; err != nil {
		t.Errorf("codex exec: %v\n%s", err, stderr.String())
	}
	done <- nil // for the cleanup
	e := &agentEnv{t: t, p: p, cfg: cfg}
	if m := e.waitState(ws.ID, id, "confirmed"); m.Via != "stop" || m.Session != thread {
		t.Errorf("delivered as %+v", m)
	}
}

// TestLegacyCodexSession runs Codex 0.47 (a 2025 release: no hooks, no
// explicit turn end in its files) under the bridge with `hooks install
// --codex`: its turn streams and completes once, the notify program
// reports the turn's end to the bridge, and a message for the idle session
// is resumed into it and confirmed.
func TestLegacyCodexSession(t *testing.T) {
	codexBin := codextest.Find(t, codextest.Legacy)
	home := t.TempDir()
	dir := filepath.Join(home, "work", "old")
	model := codextest.ModelFor(codextest.Legacy)
	oai := fakemodel.NewTest(t,
		fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
			return []fakemodel.Block{fakemodel.Text("Listing."), fakemodel.Shell(r.ToolNames(), "echo legacy")}
		}),
		fakemodel.Reply(fakemodel.Text("Listed.")),
		fakemodel.Reply(fakemodel.Text("Got it on 0.47.")),
	)
	co := codextest.Options{Bin: codexBin, BaseURL: oai.URL(), Home: home, Dir: dir, Prompt: "list", Model: model}
	if err := codextest.PrepareHome(co.CodexHome(), dir, oai.URL(), model); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "hooks", "install", "--codex", "--home", home); err != nil {
		t.Fatalf("hooks install --codex: %v\n%s", err, out)
	}
	// The resumed turn must run as the test's own runs do (no sandbox
	// here): the bridge passes the session's settings through, so give
	// 0.47 the bypass in its config.
	appendFile(t, filepath.Join(co.CodexHome(), "config.toml"), "\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n")
	env := []string{codextest.KeyEnv + "=test-key", "PATH=" + filepath.Dir(codexBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	p := startBridgeWith(t, home, 0, env, "--headless")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := codextest.Run(ctx, co); err != nil {
		t.Fatal(err)
	}
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir })
	sse := openStream(t, p, ws.ID, 0)
	var thread string
	evs := sse.until(t, 30*time.Second, func(evs []event.Event) bool {
		for _, ev := range evs {
			if ev.Type == event.TurnComplete {
				thread = ev.SessionID
				return true
			}
		}
		return false
	})
	var tool bool
	for _, ev := range evs {
		tool = tool || (ev.Type == event.ToolUse && ev.Name == "Bash" && ev.Input == "echo legacy" && ev.Agent == "codex")
	}
	if !tool {
		t.Errorf("no Bash tool_use for 0.47's shell call: %v", kinds(evs))
	}
	cfg := config{Addr: strings.TrimPrefix(p.base, "http://")}
	cfg.Home = home
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	if !logsContain(t, cfg.LogDir, `"hook":"codex-notify"`) {
		t.Error("the notify program never called the bridge")
	}
	var res struct{ ID, Status string }
	if err := apiCall(ctx, cfg, http.MethodPost, "/workspace/"+ws.ID+"/session/messages",
		map[string]string{"message": "legacy: one more thing", "session_id": thread}, &res); err != nil {
		t.Fatal(err)
	}
	if _, err := oai.WaitRequest(ctx, func(r fakemodel.Request) bool { return r.Contains("legacy: one more thing") }); err != nil {
		t.Fatalf("0.47's model never got the message: %v\n%s", err, p.log)
	}
	e := &agentEnv{t: t, p: p, cfg: cfg}
	if m := e.waitState(ws.ID, res.ID, "confirmed"); m.Via != "codex_exec_resume" {
		t.Errorf("delivered as %+v", m)
	}
	turns := 0
	for _, ev := range sse.until(t, 30*time.Second, func(evs []event.Event) bool {
		for _, ev := range evs {
			if ev.Type == event.TurnComplete {
				return true
			}
		}
		return false
	}) {
		turns += map[bool]int{true: 1}[ev.Type == event.TurnComplete]
	}
	if turns != 1 {
		t.Errorf("the resumed turn completed %d times", turns)
	}
}

func appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// logsContain reports whether some log file in dir holds s.
func logsContain(t testing.TB, dir, s string) bool {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range logs {
		if b, _ := os.ReadFile(f); strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
