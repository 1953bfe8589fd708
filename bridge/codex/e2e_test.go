package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/codextest"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/fakeopenai"
)

// hookScripts writes a Stop hook that delivers the message in inbox once
// (as the bridge's hook program would) and a notify program that appends
// its JSON argument to a log, and returns the spec installing both.
func hookScripts(t *testing.T, dir string) (spec HookSpec, inbox, notifyLog string) {
	t.Helper()
	inbox, notifyLog = filepath.Join(dir, "inbox"), filepath.Join(dir, "notify.log")
	stop := filepath.Join(dir, "stop hook.sh") // a space, to prove the quoting
	script := "#!/bin/sh\ncat >/dev/null\nif [ -f '" + inbox + "' ]; then\n" +
		"  msg=$(cat '" + inbox + "'); rm -f '" + inbox + "'\n" +
		"  printf '{\"decision\":\"block\",\"reason\":\"%s\"}\\n' \"$msg\"\nfi\n"
	notify := filepath.Join(dir, "notify.sh")
	if err := os.WriteFile(stop, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notify, []byte("#!/bin/sh\nfor last; do :; done\nprintf '%s\\n' \"$last\" >> '"+notifyLog+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return HookSpec{Stop: "'" + stop + "'", Notify: []string{notify, "--from-codex"}}, inbox, notifyLog
}

// TestStopHookDeliversToBusySession proves the busy-session route on the
// real 0.169: with the bridge's hooks installed by InstallHooks (trusted by
// hash, no bypass flag), a message waiting when Codex is about to end its
// turn reaches the model's next request, the rollout records it as the
// person's input, the turn still completes once, and notify fires.
func TestStopHookDeliversToBusySession(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	srv := fakeopenai.NewTest(t, fakeopenai.Reply(fakeopenai.Message("first answer")), fakeopenai.Reply(fakeopenai.Message("got it")))
	home := t.TempDir()
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home, Prompt: "hello"}
	cfg := codextest.Config(srv.URL(), filepath.Join(home, "work", "demo"), codextest.ModelFor(codextest.Latest))
	if err := os.MkdirAll(o.CodexHome(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ConfigPath(o.CodexHome()), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, inbox, notifyLog := hookScripts(t, t.TempDir())
	if _, err := InstallHooks(o.CodexHome(), spec); err != nil {
		t.Fatal(err)
	}
	if st, err := HooksStatus(o.CodexHome()); err != nil || !st.Trusted || st.Stop != spec.Stop {
		t.Fatalf("status after install: %+v, %v", st, err)
	}
	msg := event.InjectedMarker + "m1] please also say hi"
	if err := os.WriteFile(inbox, []byte(msg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := codextest.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	reqs := srv.MainRequests()
	if len(reqs) != 2 || !reqs[1].Contains(msg) || reqs[0].Contains(msg) {
		t.Fatalf("the message did not reach the second request: %d requests", len(reqs))
	}
	evs := parseRollout(t, codextest.Rollouts(t, o.CodexHome())[0])
	var users, turns int
	for _, e := range evs {
		if e.Type == event.User && !e.System {
			users++
			if users == 2 && e.Content != msg {
				t.Errorf("delivered message shown as %q", e.Content)
			}
		}
		if e.Type == event.TurnComplete {
			turns++
		}
	}
	if users != 2 || turns != 1 {
		t.Errorf("want the prompt and the delivered message in one turn, got %d user events, %d turns:\n%s", users, turns, describe(evs))
	}
	log, err := os.ReadFile(notifyLog)
	if err != nil || !strings.Contains(string(log), `"agent-turn-complete"`) {
		t.Errorf("notify did not run with agent-turn-complete: %q %v", log, err)
	}
}

func parseRollout(t *testing.T, path string) []event.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewParser(nil)
	var evs []event.Event
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if evs, err = p.Line([]byte(line), evs); err != nil {
			t.Fatalf("rollout line rejected: %v", err)
		}
	}
	return p.Quiet(p.Flush(evs))
}
