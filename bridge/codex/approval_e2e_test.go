package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// TestLegacyApprovalLeavesNoTrace documents why a 0.47 session cannot
// show needs_input for an approval: with a notify program installed and
// Codex waiting for the person's approval of a command (its app server,
// approval policy on-request), the rollout holds the prompt and the
// response's token count but not even the call (0.47 writes a response's
// items once its tool calls are done), the parser sees a turn at work and
// no wait, and notify has not run; it runs once, at the turn's end, with
// agent-turn-complete. 0.47 has no hooks at all.
func TestLegacyApprovalLeavesNoTrace(t *testing.T) {
	bin := codextest.Find(t, codextest.Legacy)
	srv := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.ToolUse("shell", map[string]any{"command": []string{"bash", "-lc", "touch approved.txt"},
			"with_escalated_permissions": true, "justification": "write approved.txt"})),
		fakemodel.Reply(fakemodel.Text("done")))
	home := t.TempDir()
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home, Model: codextest.ModelFor(codextest.Legacy)}
	dir := filepath.Join(home, "work", "demo")
	if err := codextest.PrepareHome(o.CodexHome(), dir, srv.URL(), o.Model); err != nil {
		t.Fatal(err)
	}
	spec, _, notifyLog := hookScripts(t, t.TempDir())
	if _, err := InstallHooks(o.CodexHome(), HookSpec{Notify: spec.Notify}); err != nil {
		t.Fatal(err)
	}
	ctx, app := startAppServer(t, o)
	thread, err := app.StartLegacyThread(ctx, dir, "on-request", "read-only")
	if err != nil {
		t.Fatal(err)
	}
	if err := app.StartLegacyTurn(ctx, thread, "write approved.txt"); err != nil {
		t.Fatal(err)
	}
	approval, err := app.Wait(ctx, "execCommandApproval")
	if err != nil {
		t.Fatal(err)
	}
	rollouts := codextest.Rollouts(t, o.CodexHome())
	if len(rollouts) != 1 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	parse := func() *Parser {
		t.Helper()
		raw, err := os.ReadFile(rollouts[0])
		if err != nil {
			t.Fatal(err)
		}
		p, _ := NewParser(nil)
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			if _, err := p.Line([]byte(line), nil); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
		}
		if strings.Contains(string(raw), "approval_request") || strings.Contains(string(raw), `"function_call"`) {
			t.Errorf("0.47 wrote the approval or the waiting call after all:\n%s", raw)
		}
		return p
	}
	// Codex's own writes are asynchronous: give the writer its moment,
	// then look for any trace of the wait.
	time.Sleep(time.Second)
	p := parse()
	if reason, waiting := p.NeedsInput(); waiting || !p.InTurn() {
		t.Errorf("while 0.47 waits for an approval: waiting=%v (%q), in turn=%v", waiting, reason, p.InTurn())
	}
	if data, err := os.ReadFile(notifyLog); err == nil {
		t.Errorf("notify ran while Codex waited for the approval: %s", data)
	}
	if err := app.Reply(approval, map[string]any{"decision": "approved"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var data []byte
	for time.Now().Before(deadline) {
		if data, err = os.ReadFile(notifyLog); err == nil && len(data) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `"type":"agent-turn-complete"`) {
		t.Errorf("notify after the turn: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}
