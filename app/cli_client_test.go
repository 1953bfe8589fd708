package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	"conductorbridge/bridge/localsock"
)

func TestHelpListsCommands(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help", "help"} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{arg}, &out, &errb); err != nil {
			t.Errorf("%s: %v", arg, err)
		}
		s := out.String()
		if !strings.Contains(s, "commands:") || strings.Contains(errb.String(), "-headless") {
			t.Errorf("%s printed:\n%s\nstderr:\n%s", arg, s, errb.String())
		}
		// Every command run dispatches is listed, with the session form.
		for _, cmd := range []string{"demo", "serve", "workspaces", "tail <ws>[/<session>]", "send <ws>[/<session>]", "hooks install",
			"register", "unregister", "pair", "expose", "open", "extension install|uninstall", "native-host <origin>", "token", "service install", "doctor", "usage", "bench", "version"} {
			if !strings.Contains(s, "  "+cmd) {
				t.Errorf("%s: %q is not listed", arg, cmd)
			}
		}
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"--version"}, &out, &out); err != nil || !strings.HasPrefix(out.String(), "conductor-bridge ") {
		t.Errorf("--version: %v %q", err, out.String())
	}
}

// tailUntil runs `tail` and returns its output once it holds want (or
// fails after a generous wait).
func tailUntil(t *testing.T, want string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append([]string{"tail"}, args...)...)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME=")
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	var got strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		got.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), want) {
			return got.String()
		}
	}
	t.Fatalf("tail never printed %q:\n%s\nstderr: %s", want, got.String(), stderr.String())
	return ""
}

// The client commands find a bridge running on another port than the
// default through its bridge.json, as hooks and doctor do.
func TestClientsFindTheBridgeOnAnotherPort(t *testing.T) {
	home := t.TempDir()
	dir, _ := plainProject(t, home, "shop")
	p := startBridgeProc(t, home, 0) // a free port, never 34568
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.LastEventID > 0 })
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"workspaces", "--home", home}, ws.ID},
		{[]string{"pair", "shop", "--home", home}, "is paired with Chrome"},
		{[]string{"send", "shop", "hello", "--home", home}, "queued"},
		{[]string{"expose", "--home", home}, "browsers see: paired"},
	} {
		out, err := runCLI(t, tc.args...)
		if err != nil || !strings.Contains(out, tc.want) || strings.Contains(out, "scanning directly") {
			t.Errorf("%v: %v\n%s", tc.args, err, out)
		}
	}
	tailUntil(t, "hello bridge", "--home", home, "shop")
}

// tail (like every command) shows what a transcript holds, but never lets
// it drive the terminal: OSC 52 (clipboard), a title, a clear screen, an
// 8-bit CSI all come out visible.
func TestTailRendersEscapesVisibly(t *testing.T) {
	home := t.TempDir()
	dir, transcript := plainProject(t, home, "shop")
	evil := "clip\x1b]52;c;cm0gLXJmIH4=\x07 title\x1b]0;pwned\x1b\\ clear\x1b[2J\x1b[H c1\u009b31m END-OF-EVIL"
	text, _ := json.Marshal(evil)
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, `{"type":"assistant","sessionId":"s","cwd":%q,"requestId":"r2","timestamp":"2026-01-01T10:00:04Z","message":{"id":"m2","model":"claude-sonnet-4-5","stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"text","text":%s}]}}`+"\n",
		dir, text)
	f.Close()
	p := startBridgeProc(t, home, 0)
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.LastEventID >= 3 })
	for _, args := range [][]string{{"--home", home, "shop"}, {"--json", "--home", home, "shop"}} {
		out := tailUntil(t, "END-OF-EVIL", args...)
		if strings.ContainsAny(out, "\x1b\x07\u009b") {
			t.Errorf("tail %v let a control through: %q", args, out)
		}
		if !strings.Contains(out, `clip\u001b]52;c;cm0gLXJmIH4=\u0007`) || !strings.Contains(out, `c1\u009b31m`) {
			t.Errorf("tail %v: escapes not shown: %q", args, out)
		}
	}
}

// `tail <ws>/<session>` follows one tab of a workspace with two: the other
// tab's events, interleaved in the workspace's stream, never show.
func TestTailOneTab(t *testing.T) {
	home := t.TempDir()
	tokyo := newTranscript(t, home, "tokyo")
	const second = "0b0b0b0b-2222-4222-8222-000000000002"
	tab := secondTab(tokyo, second)
	p := startBridgeProc(t, home, 0)
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == tokyo.cwd && len(w.Sessions) == 2 })
	tokyo.prompt("first tab speaks")
	tab.prompt("second tab speaks")
	tokyo.prompt("first tab again")
	tab.prompt("second tab again")
	out := tailUntil(t, "second tab again", "--home", home, "--json", "-n", "100", "tokyo/0b0b")
	n := 0
	for line := range strings.Lines(out) {
		var e event.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not an event: %q", line)
		}
		if e.SessionID != second {
			t.Errorf("event of session %q in the second tab's tail: %s", e.SessionID, line)
		}
		n++
	}
	if n < 3 || !strings.Contains(out, "second tab speaks") {
		t.Errorf("the second tab's events are missing:\n%s", out)
	}
}

// A model with no price is logged once, however many of its turns stream:
// the log names it and says how to price it, and the stream says unknown.
func TestUnknownModelIsLoggedOnce(t *testing.T) {
	home := t.TempDir()
	tokyo := newTranscript(t, home, "tokyo")
	p := startBridgeProc(t, home, 0)
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == tokyo.cwd })
	for i := range 3 {
		tokyo.prompt(fmt.Sprintf("question %d", i))
		tokyo.write(map[string]any{"type": "assistant", "requestId": fmt.Sprintf("req_k%d", i), "message": map[string]any{
			"id": fmt.Sprintf("msg_k%d", i), "role": "assistant", "model": "kimi-k2-turbo", "stop_reason": "end_turn",
			"content": []any{map[string]any{"type": "text", "text": "an answer"}}, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}})
	}
	tokyo.prompt("the next one")
	evs := openStream(t, p, ws.ID, 0).until(t, 20*time.Second, func(evs []event.Event) bool {
		n := 0
		for _, e := range evs {
			if e.Type == event.TurnComplete && e.Model == "kimi-k2-turbo" {
				n++
			}
		}
		return n == 3
	})
	for _, e := range evs {
		if e.Type == event.TurnComplete && (e.CostKnown || e.CostUSD != 0) {
			t.Errorf("turn of an unpriced model: known %v, $%v", e.CostKnown, e.CostUSD)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(p.stateDir(), "logs", "*.log"))
	var all strings.Builder
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	if n := strings.Count(all.String(), "no price for this model"); n != 1 || !strings.Contains(all.String(), "kimi-k2-turbo") {
		t.Errorf("%d log lines about the unpriced model, want 1:\n%s", n, all.String())
	}
}

// A state folder too deep for a socket path: the bridge listens on a short
// one in a per-user folder, says so, and the CLI finds it there.
func TestDeepStateFolderGetsAShortSocket(t *testing.T) {
	home := t.TempDir()
	dir, _ := plainProject(t, home, "shop")
	state := filepath.Join(home, strings.Repeat("deep", 20), "state")
	if sock, short := localsock.Path(state); !short || len(filepath.Join(state, localsock.Name)) <= localsock.MaxPath() {
		t.Fatalf("not too deep: %s", sock)
	}
	p := startBridgeWith(t, home, 0, nil, "--headless", "--state-dir", state)
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir })
	out, err := runCLI(t, "workspaces", "--home", home, "--state-dir", state)
	if err != nil || !strings.Contains(out, dir) || strings.Contains(out, "scanning directly") {
		t.Errorf("workspaces: %v\n%s", err, out)
	}
	logs, _ := filepath.Glob(filepath.Join(home, ".local", "state", "conductor-bridge", "logs", "*.log"))
	var said bool
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		said = said || strings.Contains(string(b), "too long for a socket")
	}
	if !said {
		t.Error("the bridge did not say where its socket went")
	}
}
