package main

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"conductorbridge/bridge/claudetest"
	"conductorbridge/bridge/codextest"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/fakemodel"
	"conductorbridge/bridge/fakeopenai"
)

// conductorSchema is ../shared/conductor/schema.sql: the database as real
// installs have it. Missing, the test skips, and fails under CI.
func conductorSchema(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"../../shared/conductor/schema.sql", "/work/shared/conductor/schema.sql"} {
		if b, err := os.ReadFile(p); err == nil {
			return string(b)
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("schema.sql not found")
	}
	t.Skip("schema.sql not found")
	return ""
}

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
	for _, s := range append([]string{conductorSchema(t)}, stmts...) {
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
	oai := fakeopenai.NewTest(t, append(codextest.FirstTurn(), fakeopenai.Reply(fakeopenai.Message("Codex got the message.")))...)
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

	turns := func(evs []event.Event) map[string]int {
		n := map[string]int{}
		for _, ev := range evs {
			if ev.Type == event.TurnComplete {
				n[ev.SessionID]++
			}
		}
		return n
	}
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
	sess := (&tabsEnv{agentEnv: e}).sessionsOf(ws.ID)
	if c := sess[thread]; c == nil || c["agent"] != "codex" || c["conductor_session_id"] != "s-codex" || c["status"] != "idle" {
		t.Errorf("Codex tab listed as %v (all: %v)", c, sess)
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
	if _, err := oai.WaitRequest(wctx, func(r fakeopenai.Request) bool { return r.Contains("codex: check the footer") }); err != nil {
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
