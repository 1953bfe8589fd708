package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"conductorbridge/bridge/hooks"
)

// Issue 24's critical finding, for real: while the bridge is down, another
// OS user listens on its port, playing the bridge. The real hook relay and
// the real CLI must send it no secret and act on nothing it says.

// downBridge runs a real bridge on home once (its token, hook secret and
// bridge.json are written), pairs shop, and kills it as a crash would:
// bridge.json still names the port.
func downBridge(t *testing.T) (home, dir, addr string, p *bridgeProc) {
	t.Helper()
	home = t.TempDir()
	dir, _ = plainProject(t, home, "shop")
	p = startBridgeProc(t, home, 0)
	p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir })
	if out, err := runCLI(t, "pair", "--home", home, "shop"); err != nil {
		t.Fatalf("pair: %v %s", err, out)
	}
	p.kill(syscall.SIGKILL)
	ri, err := readRunFile(p.stateDir())
	if err != nil || ri.Addr != strings.TrimPrefix(p.base, "http://") {
		t.Fatalf("bridge.json after the crash: %+v %v", ri, err)
	}
	return home, dir, ri.Addr, p
}

// noSecretArrived fails if any request the squatter saw carried a secret
// of the user's, or if there was any request at all.
func noSecretArrived(t *testing.T, reqs []impostorRequest, secrets ...string) {
	t.Helper()
	for _, r := range reqs {
		for _, s := range secrets {
			if s != "" && strings.Contains(r.Auth+r.Cookie+r.Body, s) {
				t.Errorf("the squatter got a secret: %s %s (Authorization %q)", r.Method, r.Path, r.Auth)
			}
		}
	}
	if len(reqs) > 0 {
		t.Errorf("the squatter was asked %d times: %+v", len(reqs), reqs)
	}
}

func TestSquatterOnThePortGetsNothingFromTheHookRelay(t *testing.T) {
	home, dir, addr, p := downBridge(t)
	sq := startImpostor(t, addr)
	spec := hooks.Spec{Binary: binary, StateDir: p.stateDir()}
	for _, event := range []string{"stop", "post-tool-use"} {
		in := fmt.Sprintf(`{"session_id":"s","transcript_path":"%s","cwd":%q,"hook_event_name":"Stop","stop_hook_active":false}`,
			filepath.Join(home, "t.jsonl"), dir)
		// The command exactly as Claude Code runs it from the settings file.
		cmd := exec.Command("sh", "-c", spec.Command(event))
		cmd.Stdin = strings.NewReader(in)
		cmd.Env = append(os.Environ(), "HOME="+home)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil || stdout.Len() != 0 || stderr.Len() != 0 {
			t.Errorf("hook %s with the squatter on the port: %v, stdout %q, stderr %q; want exit 0 and nothing",
				event, err, stdout.String(), stderr.String())
		}
	}
	secret, _ := os.ReadFile(filepath.Join(p.stateDir(), hookSecretFile))
	noSecretArrived(t, sq.stop(), strings.TrimSpace(string(secret)))
}

func TestSquatterOnThePortGetsNothingFromTheCLI(t *testing.T) {
	home, dir, addr, p := downBridge(t)
	sq := startImpostor(t, addr)
	out, err := runCLI(t, "workspaces", "--home", home)
	if err != nil || !strings.Contains(out, "not running") || !strings.Contains(out, dir) || strings.Contains(out, "ws-squat") {
		t.Errorf("workspaces with the squatter on the port: %v\n%s\nwant: not running, then a direct scan", err, out)
	}
	out, err = runCLI(t, "send", "--home", home, "shop", "the staging password is hunter2")
	if err == nil || !strings.Contains(out, "not running") || strings.Contains(out, "m-squat") {
		t.Errorf("send with the squatter on the port: %v\n%s\nwant: an error saying the bridge is not running", err, out)
	}
	// The login item's fallback (no socket handed over) does not take a
	// squatter for a bridge already running: it fails, and is retried.
	out, err = runCLI(t, "serve", "--headless", "--if-not-running", "--home", home, "--addr", addr)
	if err == nil || !strings.Contains(out, "uid "+strconv.Itoa(int(sq.uid))) {
		t.Errorf("serve --if-not-running with the squatter on the port: %v\n%s\nwant a failure naming uid %d", err, out, sq.uid)
	}
	out, _ = runCLI(t, "doctor", "--home", home, "--addr", addr)
	if !strings.Contains(out, "another user of this machine (uid "+strconv.Itoa(int(sq.uid))+")") {
		t.Errorf("doctor with the squatter on the port:\n%s", out)
	}
	noSecretArrived(t, sq.stop(), p.token())
}
