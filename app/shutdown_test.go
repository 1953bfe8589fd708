package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rs/zerolog"

	"conductorbridge/bridge/inject"
)

// TestShutdownOnExitRunsEveryStep calls what systray's onExit is given,
// as AppKit does when it terminates the app (logout, restart, the cask's
// quit) before exiting the process: by the time it returns, the bridge has
// stopped serving, its engine has stopped, the hub is closed, the hook
// record is on disk and bridge.json is gone.
func TestShutdownOnExitRunsEveryStep(t *testing.T) {
	home := t.TempDir()
	var c config
	c.Addr = "127.0.0.1:0"
	c.Home, c.StateDir, c.LogDir = home, filepath.Join(home, "state"), filepath.Join(home, "logs")
	c.ClaudeProjects, c.ClaudeSettings = filepath.Join(home, ".claude", "projects"), filepath.Join(home, ".claude", "settings.json")
	c.CodexHome, c.ConductorDB, c.ConductorRoot = filepath.Join(home, ".codex"), filepath.Join(home, "conductor.db"), filepath.Join(home, "conductor")
	if err := c.resolve(); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(c.StateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, quit := context.WithCancel(context.Background())
	defer quit()
	b, err := startBridge(ctx, c, zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := serverLimits().Server(b.api.Handler())
	go srv.Serve(ln)
	if _, err := tcpHealth(ctx, ln.Addr().String()); err != nil {
		t.Fatal(err)
	}
	if err := writeRunFile(c.StateDir, ln.Addr().String()); err != nil {
		t.Fatal(err)
	}
	// The first hook call is saved at once; the next, this soon after,
	// waits for the next save or the shutdown.
	b.seen.Record("ws-1", "Stop")
	b.seen.Record("ws-1", "PostToolUse")
	topic, err := b.hub.Topic("ws-1")
	if err != nil {
		t.Fatal(err)
	}
	_, _, sub := topic.Subscribe(0)

	stop := startShutdown(ctx, quit, func() { b.stop(srv, c.StateDir, zerolog.Nop()) })
	stop.onExit()

	select {
	case <-stop.done:
	default:
		t.Fatal("onExit returned before the shutdown ended: AppKit would exit in the middle of it")
	}
	select {
	case <-b.done:
	default:
		t.Error("the engine is still running")
	}
	if _, err := os.Stat(filepath.Join(c.StateDir, runFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("bridge.json still there (%v)", err)
	}
	seen, err := inject.ReadSeen(filepath.Join(c.StateDir, hooksSeenFile))
	if err != nil || seen["ws-1"].Event != "PostToolUse" {
		t.Errorf("hook record on disk: %+v, %v; want the last call (PostToolUse)", seen, err)
	}
	if _, ok := <-sub.C; ok {
		t.Error("a stream subscriber is still open: the hub was not closed")
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/health"); err == nil {
		t.Error("still serving after the shutdown")
	}
	stop.onExit() // a second way out finds it done
}

// TestShutdownOnSignals stops a real bridge with SIGTERM, then another
// with SIGINT (each the way launchd, systemd or a terminal does): each
// exits 0, with a queued message on disk, the hook record saved,
// bridge.json removed, and "stopped" as the last word in its log.
func TestShutdownOnSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			dir := gitRepo(t, filepath.Join(home, "work", "demo"))
			p := startBridgeProc(t, home, 0)
			ws := registerDir(t, p, dir)
			ve := &viewerEnv{t: t, p: p}
			ve.hook("stop", map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "Stop"})
			ve.hook("stop", map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "Stop"})
			if out, err := runCLI(t, "send", "--home", home, "--addr", strings.TrimPrefix(p.base, "http://"), ws, "check the mobile view"); err != nil {
				t.Fatalf("send: %v %s", err, out)
			}
			run := filepath.Join(p.stateDir(), runFile)
			if _, err := os.Stat(run); err != nil {
				t.Fatalf("no bridge.json while running: %v", err)
			}

			p.kill(sig)
			if code := p.cmd.ProcessState.ExitCode(); code != 0 {
				t.Errorf("exit code %d after %v\n%s", code, sig, p.log)
			}
			if _, err := os.Stat(run); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("bridge.json left behind (%v)", err)
			}
			if seen, err := inject.ReadSeen(filepath.Join(p.stateDir(), hooksSeenFile)); err != nil || seen[ws].At.IsZero() {
				t.Errorf("hook record: %+v, %v", seen, err)
			}
			q, err := inject.Open(filepath.Join(p.stateDir(), "queue"))
			if err != nil {
				t.Fatal(err)
			}
			if msgs := q.List(ws); len(msgs) != 1 || msgs[0].Text != "check the mobile view" {
				t.Errorf("queue after %v: %+v", sig, msgs)
			}
			if !strings.Contains(lastLogLine(t, home), "Conductor Bridge stopped") {
				t.Errorf("the log does not end with the shutdown:\n%s", lastLogLine(t, home))
			}
		})
	}
}

// registerDir adopts dir (a git worktree) and returns its workspace id.
func registerDir(t *testing.T, p *bridgeProc, dir string) string {
	t.Helper()
	if out, err := runCLI(t, "register", "--home", p.home, "--addr", strings.TrimPrefix(p.base, "http://"), dir); err != nil {
		t.Fatalf("register: %v %s", err, out)
	}
	return p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir }).ID
}

// lastLogLine is the message of the last line of the bridge's log file.
func lastLogLine(t *testing.T, home string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(homeRoots(home).LogDir, "*.log"))
	if len(logs) == 0 {
		return ""
	}
	b, _ := os.ReadFile(logs[0])
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var rec struct {
		Message string `json:"message"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &rec)
	return rec.Message
}
