package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/nativehost"
)

// hostRun is one run of the native host binary, as Chrome starts it: the
// origin as its only argument, the framed requests on stdin.
type hostRun struct {
	replies []nativehost.Reply
	stderr  string
	exit    int
}

// runHost runs bin as Chrome would, as cred's user (nil: this one), with
// env (HOME and friends) and the raw bytes in on stdin.
func runHost(t testing.TB, bin string, cred *syscall.Credential, env []string, origin string, in []byte) hostRun {
	t.Helper()
	cmd := exec.Command(bin, origin)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	cmd.Dir = filepath.Dir(bin) // as Chrome does: the host binary's folder
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run the host: %v", err)
	}
	r := hostRun{stderr: errb.String(), exit: cmd.ProcessState.ExitCode()}
	for {
		b, err := nativehost.ReadMessage(&out, nativehost.MaxFromHost)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the host wrote something that is not a message: %v (stdout left: %q)", err, out.String())
		}
		var rep nativehost.Reply
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("reply %q: %v", b, err)
		}
		r.replies = append(r.replies, rep)
	}
	if strings.Contains(r.stderr, "panic") {
		t.Errorf("the host panicked: %s", r.stderr)
	}
	return r
}

// frames encodes messages as Chrome sends them.
func frames(msgs ...string) []byte {
	var b bytes.Buffer
	for _, m := range msgs {
		b.Write([]byte{byte(len(m)), byte(len(m) >> 8), byte(len(m) >> 16), byte(len(m) >> 24)})
		b.WriteString(m)
	}
	return b.Bytes()
}

const connectMsg = `{"type":"connect"}`

// homeEnv is the environment of a person whose home is home.
func homeEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_STATE_HOME=", "CLAUDE_CONFIG_DIR="}
}

// TestNativeHostHandsOverAWorkingBrowserCredential: with the bridge
// running, the host answers connect with its port and the extension
// token: good for a browser's rights (the paired workspace, a message),
// not the API token, and refused local control.
func TestNativeHostHandsOverAWorkingBrowserCredential(t *testing.T) {
	home := t.TempDir()
	dir, _ := plainProject(t, home, "shop")
	p := startBridgeProc(t, home, 0)
	ws := p.waitFor(func(w apiWorkspace) bool { return w.Directory == dir })
	if out, err := runCLI(t, "pair", "--addr", strings.TrimPrefix(p.base, "http://"), "--home", home, ws.ID); err != nil {
		t.Fatalf("pair: %v %s", err, out)
	}
	r := runHost(t, binary, nil, homeEnv(home), ownExtension+"/", frames(connectMsg, connectMsg, `{"type":"usage"}`))
	if r.exit != 0 || len(r.replies) != 3 {
		t.Fatalf("host: exit %d, replies %+v, stderr %s", r.exit, r.replies, r.stderr)
	}
	rep := r.replies[0]
	if rep.Error != "" || "http://127.0.0.1:"+strconv.Itoa(rep.Port) != p.base {
		t.Fatalf("connect: %+v, want the port of %s", rep, p.base)
	}
	if rep.Token == p.token() || !strings.HasPrefix(rep.Token, "ext.") {
		t.Fatalf("the host handed over %q: not the extension token", rep.Token)
	}
	// The panel's usage link: a one-time link that signs a tab in and
	// shows the usage page.
	usage := r.replies[2]
	if !strings.HasPrefix(usage.URL, p.base+"/open/") || !strings.HasSuffix(usage.URL, "?to=usage") {
		t.Fatalf("usage: %+v, want a one-time link to the usage page", usage)
	}
	nc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := nc.Get(usage.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/usage#ps=") {
		t.Errorf("the usage link: %d to %q, want a redirect to the usage page", resp.StatusCode, loc)
	}
	var list struct {
		Workspaces []apiWorkspace `json:"workspaces"`
	}
	if err := tcpGetJSON(context.Background(), p.base+"/api/workspaces", rep.Token, &list); err != nil || len(list.Workspaces) != 1 {
		t.Errorf("list with the host's credential: %v %+v", err, list)
	}
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/workspace/" + ws.ID + "/session/messages", `{"message":"from the panel"}`, 202},
		{"POST", "/api/token/rotate", "", 401},
		{"POST", "/api/workspaces/" + ws.ID + "/unpair", "", 401},
	} {
		req, _ := http.NewRequest(c.method, p.base+c.path, strings.NewReader(c.body))
		req.Header.Set("Authorization", "Bearer "+rep.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s with the host's credential: %d, want %d", c.method, c.path, resp.StatusCode, c.want)
		}
	}
}

// TestNativeHostSaysWhatToDo: what the host answers when it cannot help,
// and how it takes input that is not a request: an answer, never a crash.
func TestNativeHostSaysWhatToDo(t *testing.T) {
	home := t.TempDir()
	env := homeEnv(home)
	start := "Run: conductor-bridge (or start its login item" // no Applications folder to open it from here
	if runtime.GOOS == "darwin" {
		start = "Open it from Applications"
	}
	tests := []struct {
		name   string
		origin string
		in     []byte
		codes  []string // one reply each
		exit   int
		says   string
	}{
		{"bridge not running", ownExtension + "/", frames(connectMsg), []string{nativehost.CodeNotRunning}, 0, start},
		{"the usage page, bridge not running", ownExtension + "/", frames(`{"type":"usage"}`), []string{nativehost.CodeNotRunning}, 0, "conductor-bridge open --usage"},
		{"origin not allowed", "chrome-extension://abcdefghijklmnopabcdefghijklmnop/", frames(connectMsg), []string{nativehost.CodeNotAllowed}, 0, "--allow-origin"},
		{"garbage, then an unknown request", ownExtension + "/", frames("\x00\xff garbage", `{"type":"token"}`), []string{nativehost.CodeBadRequest, nativehost.CodeBadRequest}, 0, "not JSON"},
		{"a length of 4 GiB", ownExtension + "/", []byte{0xff, 0xff, 0xff, 0xff, '{'}, []string{nativehost.CodeBadRequest}, 1, "too large"},
		{"cut inside a message", ownExtension + "/", frames(connectMsg)[:10], nil, 1, "unexpected EOF"},
		{"nothing at all", ownExtension + "/", nil, nil, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runHost(t, binary, nil, env, tt.origin, tt.in)
			var codes []string
			for _, rep := range r.replies {
				codes = append(codes, rep.Code)
				if rep.Token != "" || rep.Port != 0 {
					t.Errorf("handed over %+v", rep)
				}
			}
			if strings.Join(codes, ",") != strings.Join(tt.codes, ",") || r.exit != tt.exit {
				t.Errorf("codes %v exit %d, want %v exit %d (stderr %s)", codes, r.exit, tt.codes, tt.exit, r.stderr)
			}
			if !strings.Contains(r.stderr+replyText(r.replies), tt.says) {
				t.Errorf("says %q / %s, want it to mention %q", replyText(r.replies), r.stderr, tt.says)
			}
		})
	}
}

// TestNativeHostReadsTheTokenItDoesNotMake: the host never creates a
// token: a bridge whose token file is gone is a state problem to report.
func TestNativeHostReadsTheTokenItDoesNotMake(t *testing.T) {
	home := t.TempDir()
	p := startBridgeProc(t, home, 0)
	tok := filepath.Join(p.stateDir(), tokenFile)
	if err := os.Remove(tok); err != nil {
		t.Fatal(err)
	}
	r := runHost(t, binary, nil, homeEnv(home), ownExtension+"/", frames(connectMsg))
	if len(r.replies) != 1 || r.replies[0].Code != nativehost.CodeState || r.replies[0].Token != "" {
		t.Fatalf("replies %+v", r.replies)
	}
	if _, err := auth.Read(tok); err == nil {
		t.Error("the host made a token")
	}
}

func replyText(rs []nativehost.Reply) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Error + " ")
	}
	return b.String()
}
