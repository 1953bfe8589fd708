package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/event"
)

// plainProject makes a Claude Code project with one turn under home.
func plainProject(t *testing.T, home, name string) (dir, transcript string) {
	t.Helper()
	dir = filepath.Join(home, "work", name)
	proj := filepath.Join(home, ".claude", "projects", claude.EncodeProjectDir(dir))
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(proj, 0o755)
	transcript = filepath.Join(proj, "12345678-1234-4234-8234-123456789012.jsonl")
	lines := fmt.Sprintf(`{"type":"user","sessionId":"s","cwd":%q,"timestamp":"2026-01-01T10:00:00Z","message":{"role":"user","content":"hello bridge"}}
{"type":"assistant","sessionId":"s","cwd":%q,"requestId":"r","timestamp":"2026-01-01T10:00:02Z","message":{"id":"m","model":"claude-sonnet-4-5","stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make test"}}]}}
`, dir, dir)
	if err := os.WriteFile(transcript, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, transcript
}

func runCLI(t testing.TB, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME=")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCLIWorkspacesAndTail(t *testing.T) {
	home := t.TempDir()
	dir, transcript := plainProject(t, home, "shop")
	// Its agent at work in the project: a turn no live agent can be
	// writing would end, interrupted, once a scan had looked.
	startAgent(t, dir)
	p := startBridgeProc(t, home, 0)
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir && w.LastEventID > 0 })
	addr := strings.TrimPrefix(p.base, "http://")

	out, err := runCLI(t, "workspaces", "--addr", addr, "--home", home)
	if err != nil || !strings.Contains(out, ws.ID) || !strings.Contains(out, "shop") || !strings.Contains(out, "working") {
		t.Errorf("workspaces: %v\n%s", err, out)
	}
	// Without a bridge it scans directly.
	out, err = runCLI(t, "workspaces", "--state-dir", t.TempDir(), "--home", home)
	if err != nil || !strings.Contains(out, "scanning directly") || !strings.Contains(out, dir) {
		t.Errorf("workspaces without bridge: %v\n%s", err, out)
	}

	// tail by name shows history, then what is appended.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "tail", "--addr", addr, "--home", home, "shop")
	stdout, _ := cmd.StdoutPipe()
	cmd.Start()
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	want := []string{"you      hello bridge", "▶ Bash   make test", "◀ Bash   ok"}
	go func() {
		time.Sleep(300 * time.Millisecond)
		f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
		fmt.Fprintf(f, `{"type":"user","sessionId":"s","cwd":%q,"timestamp":"2026-01-01T10:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`+"\n", dir)
		f.Close()
	}()
	for len(want) > 0 && sc.Scan() {
		if strings.Contains(sc.Text(), want[0]) {
			want = want[1:]
		}
	}
	if len(want) > 0 {
		t.Errorf("tail never printed %q", want)
	}
}

func TestCLIVersionAndErrors(t *testing.T) {
	if out, err := runCLI(t, "version"); err != nil || !strings.HasPrefix(out, "conductor-bridge ") {
		t.Errorf("version: %v %q", err, out)
	}
	for _, addr := range []string{"0.0.0.0:34568", "[::1]:34568", "127.0.0.2:34568", "192.168.1.2:34568"} {
		if out, err := runCLI(t, "serve", "--addr", addr, "--home", t.TempDir()); err == nil || !strings.Contains(out, "127.0.0.1 only") {
			t.Errorf("%s accepted: %q", addr, out)
		}
	}
	if out, err := runCLI(t, "frobnicate"); err == nil || !strings.Contains(out, "unknown command") {
		t.Errorf("unknown command: %q", out)
	}
}

func TestPortInUseIsExplained(t *testing.T) {
	p := startBridgeProc(t, t.TempDir(), 0)
	addr := strings.TrimPrefix(p.base, "http://")
	out, err := runCLI(t, "serve", "--headless", "--home", t.TempDir(), "--addr", addr)
	if err == nil || !strings.Contains(out, "already running") {
		t.Errorf("second bridge on the same port: %v %q", err, out)
	}
	// Another program on the port.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out, err = runCLI(t, "serve", "--headless", "--home", t.TempDir(), "--addr", ln.Addr().String())
	if err == nil || !strings.Contains(out, "another program is listening") {
		t.Errorf("port held by another program: %v %q", err, out)
	}
}

func TestReorderKeepsBoolFlagsApart(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Bool("wait", false, "")
	fs.String("addr", "", "")
	got := strings.Join(reorder(fs, []string{"ws", "--wait", "hi there", "--addr", "127.0.0.1:1", "x"}), "|")
	if want := "--wait|--addr|127.0.0.1:1|ws|hi there|x"; got != want {
		t.Errorf("reorder = %s, want %s", got, want)
	}
}

// A browser's action is one terminal line: what ran, how it ended.
func TestFormatBrowseEvent(t *testing.T) {
	ts := time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local)
	tests := []struct {
		e    event.Event
		want string
	}{
		{event.Event{Action: event.BrowseStart, Command: "goto", Args: "https://example.com"}, "goto https://example.com …"},
		{event.Event{Action: event.BrowseEnd, Command: "goto", Args: "https://example.com", OK: true, DurationMS: 412}, "goto https://example.com → ok (412 ms)"},
		{event.Event{Action: event.BrowseEnd, Command: "click", Args: "@e3", Error: "Element not found:\n@e3", DurationMS: 5}, "click @e3 ✗ Element not found: @e3 (5 ms)"},
		{event.Event{Action: event.BrowseNavigation, URL: "https://example.com/next"}, "navigated to https://example.com/next"},
		{event.Event{Action: event.BrowseError, Command: "tab-guardrail", Error: "too many tabs"}, "tab-guardrail ✗ too many tabs"},
		{event.Event{Action: event.BrowseGap, GapFrom: 3, AvailableFrom: 40}, "browser actions 3–39 not shown"},
	}
	for _, tt := range tests {
		tt.e.Type, tt.e.TS = event.Browse, ts
		if got, want := formatEvent(tt.e), "10:00:00  🌐 "+tt.want; got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}
