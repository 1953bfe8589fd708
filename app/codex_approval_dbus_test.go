//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/dbustest"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/fakemodel"
)

// TestCodexApprovalNeedsInput: real Codex 0.169, driven through its app
// server as its IDE extension drives it, with an approval policy that asks
// (on-request) and a model that wants to run a command outside the
// sandbox. While Codex waits for the person's approval — which its rollout
// never records — the bridge's PermissionRequest hook (from `hooks install
// --codex`) makes the session needs_input, reason permission_prompt, and
// the desktop notification says Codex asks for permission; once the
// approval is given the command runs, the session is working again, and
// the turn ends idle. The approval comes in the session's first turn, a
// second after its rollout appeared: the hook makes the bridge scan for it.
// Then a Plan-mode question (request_user_input) is needs_input, reason
// question, until the person answers; and a refused approval ends its wait
// as an approved one does.
func TestCodexApprovalNeedsInput(t *testing.T) {
	codexBin := codextest.Find(t, codextest.Latest)
	bus := dbustest.Start(t)
	notes := bus.Notifications(t)
	home := t.TempDir()
	dir := filepath.Join(home, "work", "vault")
	notifyEveryTurn(t, home)
	const command = "touch approved.txt"
	oai := fakemodel.NewTest(t,
		fakemodel.Reply(
			fakemodel.Text("I need to write a file."),
			// Outside the read-only sandbox: under on-request Codex asks.
			fakemodel.ToolUse("exec_command", map[string]any{"cmd": command, "yield_time_ms": 10000,
				"sandbox_permissions": "require_escalated", "justification": "write approved.txt"})),
		fakemodel.Reply(fakemodel.Text("The file is there.")),
		// The second turn, in Plan mode, asks the person a question.
		fakemodel.Reply(fakemodel.ToolUse("request_user_input", map[string]any{"questions": []map[string]any{{
			"id": "color", "header": "Color", "question": "Which color?",
			"options": []map[string]any{{"label": "Blue (Recommended)", "description": "calm"}, {"label": "Red", "description": "loud"}}}}})),
		fakemodel.Reply(fakemodel.Text("Blue it is.")),
		// The third asks for a command again, which the person refuses.
		fakemodel.Reply(fakemodel.ToolUse("exec_command", map[string]any{"cmd": "touch refused.txt", "yield_time_ms": 10000,
			"sandbox_permissions": "require_escalated", "justification": "write refused.txt"})),
		fakemodel.Reply(fakemodel.Text("Understood, I left it.")),
	)
	co := codextest.Options{Bin: codexBin, BaseURL: oai.URL(), Home: home, Dir: dir}
	if err := codextest.PrepareHome(co.CodexHome(), dir, oai.URL(), codextest.ModelFor(codextest.Latest)); err != nil {
		t.Fatal(err)
	}
	if out, err := runCLI(t, "hooks", "install", "--codex", "--home", home); err != nil {
		t.Fatalf("hooks install --codex: %v\n%s", err, out)
	}
	if out, err := runCLI(t, "hooks", "status", "--codex", "--home", home); err != nil || !strings.Contains(out, "PermissionRequest hook → ") {
		t.Fatalf("hooks status --codex: %v\n%s", err, out)
	}
	p := startBridgeWith(t, home, 0, []string{"DBUS_SESSION_BUS_ADDRESS=" + bus.Address}, shortNotifyWindow)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, thread := codextest.StartAppThread(ctx, t, co, dir, "on-request", "read-only")
	if err := srv.StartTurn(ctx, thread, "write approved.txt"); err != nil {
		t.Fatal(err)
	}
	approval, err := srv.Wait(ctx, "item/commandExecution/requestApproval")
	if err != nil {
		t.Fatal(err)
	}
	session := func(ok func(apiSession) bool) apiWorkspace {
		t.Helper()
		return p.waitFor(func(w apiWorkspace) bool {
			for _, s := range w.Sessions {
				if s.SessionID == thread && ok(s) {
					return true
				}
			}
			return false
		})
	}
	ws := session(func(s apiSession) bool { return s.Status == event.StateNeedsInput && s.Reason == "permission_prompt" })
	if ws.Status != event.StateNeedsInput {
		t.Errorf("workspace status %q while its Codex session waits for an approval", ws.Status)
	}
	n, err := notes.Wait(ctx, func(n dbustest.Notification) bool { return strings.Contains(n.Summary, "needs your input") })
	if err != nil {
		t.Fatalf("no needs-input notification: %v (got %s)\n%s", err, noteLines(notes.All()), p.log)
	}
	if n.Body != "Codex asks for permission" {
		t.Errorf("notification: %s", noteLines([]dbustest.Notification{n}))
	}
	if _, err := os.Stat(filepath.Join(dir, "approved.txt")); err == nil {
		t.Fatal("the command ran before it was approved")
	}

	if err := srv.Reply(approval, map[string]any{"decision": "accept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Wait(ctx, "turn/completed"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "approved.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	ws = session(func(s apiSession) bool { return s.Status == event.StateIdle })

	// The record of it: working, waiting for the person, working again
	// once the approved command ran, idle at the turn's end.
	evs := openStream(t, p, ws.ID, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		return count(event.TurnComplete)(evs) == 1 && eventtest.LastStatus(evs, thread) == event.StateIdle
	})
	var states []string
	for _, e := range evs {
		if e.Type == event.Status && e.SessionID == thread {
			s := e.State
			if e.Reason != "" {
				s += ":" + e.Reason
			}
			if len(states) == 0 || states[len(states)-1] != s {
				states = append(states, s)
			}
		}
	}
	want := "working needs_input:permission_prompt working idle"
	if got := strings.Join(states, " "); !strings.HasSuffix(got, want) {
		t.Errorf("statuses %q, want them to end %q (events %v)", got, want, kinds(evs))
	}
	var ran bool
	for _, e := range evs {
		ran = ran || (e.Type == event.ToolResult && e.Name == "Bash" && !e.IsError)
	}
	if !ran {
		t.Errorf("no successful Bash result in %v", kinds(evs))
	}
	if all := notes.All(); len(all) == 0 || !strings.Contains(all[0].Summary, "needs your input") {
		t.Errorf("notifications: %s", noteLines(all))
	}

	// The first turn's end is noted too (folded with whatever else came
	// within the tray's coalescing window). Nothing else is held back
	// after it, so the next note shows on its own, at once or when the
	// window ends.
	if _, err := notes.Wait(ctx, func(n dbustest.Notification) bool {
		return strings.Contains(n.Summary+n.Body, "finished")
	}); err != nil {
		t.Fatalf("the first turn's end was not noted: %v (got %s)", err, noteLines(notes.All()))
	}

	// A question (Plan mode's request_user_input): the rollout has the
	// call and, once answered, its output, so the record alone shows the
	// wait and its end.
	if err := srv.StartPlanTurn(ctx, thread, "pick a color with me", codextest.ModelFor(codextest.Latest)); err != nil {
		t.Fatal(err)
	}
	question, err := srv.Wait(ctx, "item/tool/requestUserInput")
	if err != nil {
		t.Fatal(err)
	}
	session(func(s apiSession) bool { return s.Status == event.StateNeedsInput && s.Reason == "question" })
	qctx, qcancel := context.WithTimeout(ctx, 15*time.Second)
	defer qcancel()
	if _, err := notes.Wait(qctx, func(n dbustest.Notification) bool { return n.Body == "Codex asks you a question" }); err != nil {
		t.Errorf("no notification for the question: %v (got %s)", err, noteLines(notes.All()))
	}
	if err := srv.Reply(question, map[string]any{"answers": map[string]any{"color": map[string]any{"answers": []string{"Blue (Recommended)"}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Wait(ctx, "turn/completed"); err != nil {
		t.Fatal(err)
	}
	session(func(s apiSession) bool { return s.Status == event.StateIdle })
	if !oai.MainRequests()[len(oai.MainRequests())-1].Contains("Blue (Recommended)") {
		t.Error("the answer did not reach the model")
	}

	// A refused approval ends the wait too: Codex records the refusal as
	// the call's result and the model goes on.
	if err := srv.StartTurn(ctx, thread, "write refused.txt"); err != nil {
		t.Fatal(err)
	}
	refusal, err := srv.Wait(ctx, "item/commandExecution/requestApproval")
	if err != nil {
		t.Fatal(err)
	}
	session(func(s apiSession) bool { return s.Status == event.StateNeedsInput && s.Reason == "permission_prompt" })
	if err := srv.Reply(refusal, map[string]any{"decision": "decline"}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Wait(ctx, "turn/completed"); err != nil {
		t.Fatal(err)
	}
	session(func(s apiSession) bool { return s.Status == event.StateIdle })
	if _, err := os.Stat(filepath.Join(dir, "refused.txt")); err == nil {
		t.Error("the refused command ran")
	}
}

// noteLines is each notification's summary and body, without the icon.
func noteLines(ns []dbustest.Notification) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString("[" + n.Summary + " | " + n.Body + "] ")
	}
	return b.String()
}
