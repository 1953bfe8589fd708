package codex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/eventtest"
	"conductorbridge/testkit/fakemodel"
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

// firstTurn runs the real codex of version (bin) once, on "hello" to
// srv in a fresh home: a session there to resume. It returns the options
// it ran with and a context that ends with the test, two minutes at most.
func firstTurn(t *testing.T, version, bin string, srv *fakemodel.Server) (context.Context, codextest.Options) {
	t.Helper()
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: t.TempDir(), Prompt: "hello", Model: codextest.ModelFor(version)}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	if _, err := codextest.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	return ctx, o
}

// startAppServer starts the real codex's app server with o, stopped
// with the test, and returns it with a context of 60 s for talking to it.
func startAppServer(t *testing.T, o codextest.Options) (context.Context, *codextest.AppServer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	app, err := codextest.StartAppServer(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	return ctx, app
}

// TestStopHookDeliversToBusySession proves the busy-session route on the
// real 0.169: with the bridge's hooks installed by InstallHooks (trusted by
// hash, no bypass flag), a message waiting when Codex is about to end its
// turn reaches the model's next request, the rollout records it as the
// person's input, the turn still completes once, and notify fires.
func TestStopHookDeliversToBusySession(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	srv := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first answer")), fakemodel.Reply(fakemodel.Text("got it")))
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
		t.Errorf("want the prompt and the delivered message in one turn, got %d user events, %d turns:\n%s", users, turns, eventtest.Describe(evs))
	}
	log, err := os.ReadFile(notifyLog)
	n, perr := ParseNotify(strings.TrimSpace(string(log)))
	if err != nil || perr != nil || n.Type != NotifyTurnComplete || n.LastAssistantMessage != "got it" {
		t.Errorf("notify did not run once with agent-turn-complete: %q %v %v", log, err, perr)
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

// TestResumeDeliversToIdleSession proves the idle-session route on both
// releases: `codex exec resume` puts the message into the same thread, the
// model's next request carries it after the earlier conversation, and the
// rollout shows it as a second turn.
func TestResumeDeliversToIdleSession(t *testing.T) {
	for _, version := range []string{codextest.Latest, codextest.Legacy} {
		t.Run(version, func(t *testing.T) {
			bin := codextest.Find(t, version)
			srv := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first answer")), fakemodel.Reply(fakemodel.Text("got it")))
			ctx, o := firstTurn(t, version, bin, srv)
			files := codextest.Rollouts(t, o.CodexHome())
			id := codextest.ThreadID(files[0])
			msg := event.InjectedMarker + "m2] -run the tests too"
			r, err := Resume(ctx, ResumeOptions{Bin: bin, CodexHome: o.CodexHome(), ThreadID: id, Message: msg,
				Dir: o.Dir, Env: o.Environ(), Args: []string{"--dangerously-bypass-approvals-and-sandbox"}})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Wait(); err != nil {
				t.Fatal(err)
			}
			reqs := srv.MainRequests()
			last := reqs[len(reqs)-1]
			users := last.UserTexts()
			if len(reqs) != 2 || users[len(users)-1] != msg || !last.Contains("first answer") {
				t.Fatalf("request after resume: %d requests, users %q", len(reqs), users)
			}
			if got := codextest.Rollouts(t, o.CodexHome()); len(got) != 1 {
				t.Fatalf("resume wrote another file: %v", got)
			}
			var turns int
			var delivered bool
			for _, e := range parseRollout(t, files[0]) {
				turns += map[bool]int{true: 1}[e.Type == event.TurnComplete]
				delivered = delivered || (e.Type == event.User && !e.System && e.Content == msg)
			}
			if turns != 2 || !delivered {
				t.Errorf("want two turns and the message as user input, got %d turns, delivered=%v", turns, delivered)
			}
		})
	}
}

func TestRouteFor(t *testing.T) {
	t.Parallel()
	cases := []struct {
		version      string
		busy, hooked bool
		want         Route
		refused      bool
	}{
		{"0.47.0", false, false, RouteResume, false},
		{"0.47.0", true, true, "", true},
		{"0.169.0", true, true, RouteStopHook, false},
		{"0.169.0", true, false, "", true},
		{"0.170.1", true, true, RouteStopHook, false},
		{"1.0.0", true, true, RouteStopHook, false},
		{"", true, true, "", true},
		{"0.169.0-alpha.1", true, true, RouteStopHook, false},
		{"0.169.0", false, true, RouteResume, false},
	}
	for _, c := range cases {
		got, err := RouteFor(c.version, c.busy, c.hooked)
		if got != c.want || (err != nil) != c.refused {
			t.Errorf("RouteFor(%q, busy=%v, hooked=%v) = %q, %v", c.version, c.busy, c.hooked, got, err)
		}
		var de *DeliverError
		if c.refused && (!errors.Is(err, ErrCannotDeliver) || !errors.As(err, &de) || de.Reason == "") {
			t.Errorf("refusal is not a DeliverError with a reason: %v", err)
		}
	}
}

// TestLegacyReadsInstalledConfig proves 0.47 still starts with the bridge's
// hook tables in config.toml (it ignores them) and runs the notify program
// after its turn: the only exact turn-complete signal it gives.
func TestLegacyReadsInstalledConfig(t *testing.T) {
	bin := codextest.Find(t, codextest.Legacy)
	srv := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first answer")))
	home := t.TempDir()
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home, Prompt: "hello", Model: codextest.ModelFor(codextest.Legacy)}
	if err := codextest.PrepareHome(o.CodexHome(), filepath.Join(home, "work", "demo"), srv.URL(), o.Model); err != nil {
		t.Fatal(err)
	}
	spec, _, notifyLog := hookScripts(t, t.TempDir())
	if _, err := InstallHooks(o.CodexHome(), spec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := codextest.Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(notifyLog)
	id := codextest.ThreadID(codextest.Rollouts(t, o.CodexHome())[0])
	n, perr := ParseNotify(strings.TrimSpace(string(log)))
	if err != nil || perr != nil || n.Type != NotifyTurnComplete || n.ThreadID != id {
		t.Errorf("notify did not report the turn of thread %s: %q %v", id, log, err)
	}
}

// TestBrokenHookDoesNotBreakCodex: with the bridge uninstalled from disk
// but its hooks still in config.toml (the Stop command and the notify
// program both missing), Codex 0.169 still finishes its turn normally.
func TestBrokenHookDoesNotBreakCodex(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	srv := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text("first answer")))
	home := t.TempDir()
	o := codextest.Options{Bin: bin, BaseURL: srv.URL(), Home: home, Prompt: "hello"}
	if err := codextest.PrepareHome(o.CodexHome(), filepath.Join(home, "work", "demo"), srv.URL(), codextest.ModelFor(codextest.Latest)); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "gone", "conductor-bridge")
	if _, err := InstallHooks(o.CodexHome(), HookSpec{Stop: gone + " hook codex-stop", Notify: []string{gone, "hook", "codex-notify"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := codextest.Run(ctx, o)
	if err != nil || !strings.Contains(string(res.Stdout), "first answer") {
		t.Fatalf("codex with a missing hook program: %v\n%s", err, res.Stdout)
	}
	if n := len(srv.MainRequests()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
	evs := parseRollout(t, codextest.Rollouts(t, o.CodexHome())[0])
	if !strings.Contains(eventtest.Describe(evs), "turn_complete") {
		t.Errorf("turn did not complete:\n%s", eventtest.Describe(evs))
	}
}
