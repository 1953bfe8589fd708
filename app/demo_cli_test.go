package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// demoCLI runs every CLI command against a running demo with nothing but
// the line the demo printed for it (export CONDUCTOR_BRIDGE_STATE_DIR=…),
// from an empty home: each finds the demo's bridge and does what it is
// asked. Without the line, a command given the demo's port says a bridge
// of another state folder runs there, and which folder to pass.
func demoCLI(t *testing.T, cliLine, addr string) {
	t.Helper()
	name, value, ok := strings.Cut(strings.TrimPrefix(cliLine, "export "), "=")
	if !strings.HasPrefix(cliLine, "export ") || !ok || name != stateDirEnv || value == "" {
		t.Fatalf("the demo's CLI line is %q, want export %s=<folder>", cliLine, stateDirEnv)
	}
	home := t.TempDir() // nothing of the demo's but the printed line
	env := []string{"HOME=" + home, name + "=" + value}
	cli := func(args ...string) string {
		t.Helper()
		out, err := runEnv(t, binary, env, args...)
		if err != nil {
			t.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	wants := func(out string, words ...string) {
		t.Helper()
		for _, w := range words {
			if !strings.Contains(out, w) {
				t.Errorf("%q not in:\n%s", w, out)
			}
		}
	}
	wants(cli("workspaces"), "tokyo", "osaka", "kyoto", "demo/tokyo")
	wants(cli("send", "tokyo", "hello from the terminal"), "queued")
	wants(cli("pair", "osaka"), "osaka", "is paired")
	wants(cli("unpair", "osaka"), "is not paired")
	wants(cli("expose"), "browsers see: paired")
	wants(cli("open", "--print", "tokyo"), "/open/")
	wants(cli("open", "--print", "--usage"), "/open/", "?to=usage")
	token, _ := os.ReadFile(filepath.Join(value, tokenFile))
	wants(cli("token"), strings.TrimSpace(string(token)))
	wants(cli("usage", "--by", "session"), "SESSION", "TURNS", "WORKSPACE", "tokyo")
	wants(cli("hooks", "status", "tokyo"), "settings.local.json")
	repo := filepath.Join(home, "extra")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	wants(cli("register", repo), "registered")
	wants(cli("unregister", "extra"), "unregistered")
	wants(tailSome(t, env, "tokyo"), "following tokyo")

	// Without the line: the demo's port answers, the command says so.
	out, err := runEnv(t, binary, []string{"HOME=" + home}, "workspaces", "--addr", addr)
	if err == nil || !strings.Contains(out, "a bridge is running on "+addr+" with another state folder ("+value+"); pass --state-dir "+value) {
		t.Errorf("workspaces without the demo's line: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "conductor-bridge")); !os.IsNotExist(err) {
		t.Errorf("a command made a state folder in the home: %v", err)
	}
}

// tailSome runs `tail` until it has printed an event line, and returns
// what it printed.
func tailSome(t *testing.T, env []string, ws string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "tail", "-n", "3", ws)
	cmd.Env = append(append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME="), env...)
	// tail says what it follows on stderr before its first event; both
	// are read from their pipes in that order (a Builder as cmd.Stderr is
	// filled by a goroutine that may not have copied it yet).
	errOut, _ := cmd.StderrPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cancel()
	said := bufio.NewScanner(errOut)
	said.Scan()
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Errorf("tail printed no event: %s", said.Text())
	}
	return said.Text() + "\n" + sc.Text()
}
