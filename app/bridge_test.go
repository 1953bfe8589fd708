package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/event"
	"conductorbridge/bridge/paths"
	"conductorbridge/bridge/stream"
)

// binary is the conductor-bridge binary built once for the tests in this
// package that run it as users do.
var binary string

func TestMain(m *testing.M) {
	if os.Getenv(squatterEnv) != "" {
		os.Exit(squat()) // this binary, run as a program holding a port (nativehost_user_linux_test.go)
	}
	if os.Getenv("CB_TEST_IMPOSTOR") != "" {
		os.Exit(m.Run()) // another user playing the bridge on its port (impostor_linux_test.go): it needs no binary
	}
	dir, err := os.MkdirTemp("", "cb-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "conductor-bridge")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build conductor-bridge: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testBinary is this test binary, to run again (as another user, say).
func testBinary(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// bridgeProc is a conductor-bridge serve process on a fake home.
type bridgeProc struct {
	t    testing.TB
	cmd  *exec.Cmd
	base string
	home string
	log  *strings.Builder
	// state is the state dir, when not the home's default.
	state string
}

func startBridgeProc(t testing.TB, home string, port int) *bridgeProc {
	t.Helper()
	return startBridgeWith(t, home, port, nil, "--headless")
}

// startBridgeWith starts `serve` with extra environment and arguments.
func startBridgeWith(t testing.TB, home string, port int, env []string, args ...string) *bridgeProc {
	t.Helper()
	if port == 0 {
		var err error
		if port, err = freePort(); err != nil {
			t.Fatal(err)
		}
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cmd := exec.Command(binary, append([]string{"serve", "--home", home, "--addr", addr, "--log-level", "debug"}, args...)...)
	cmd.Env = append(append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME=", "DBUS_SESSION_BUS_ADDRESS=disabled:"), env...)
	var log strings.Builder
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &bridgeProc{t: t, cmd: cmd, base: "http://" + addr, home: home, log: &log}
	for i, a := range args {
		if a == "--state-dir" && i+1 < len(args) {
			p.state = args[i+1]
		}
	}
	t.Cleanup(func() {
		if t.Failed() && os.Getenv("BRIDGE_TEST_LOGS") != "" {
			p.kill(syscall.SIGQUIT) // Go prints every goroutine's stack
			t.Logf("bridge stderr:\n%s", log.String())
		}
		p.kill(syscall.SIGKILL)
		if t.Failed() && os.Getenv("BRIDGE_TEST_LOGS") != "" {
			logs, _ := filepath.Glob(filepath.Join(home, ".local", "state", "conductor-bridge", "logs", "*.log"))
			for _, f := range logs {
				b, _ := os.ReadFile(f)
				t.Logf("bridge log %s:\n%s", f, b)
			}
			for _, f := range transcripts(home) {
				b, _ := os.ReadFile(f)
				t.Logf("transcript %s:\n%s", f, b)
			}
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := probeHealth(context.Background(), p.cl()); err == nil {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("bridge did not come up: %s", log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// stateDir is where the bridge keeps its state on the fake home.
func (p *bridgeProc) stateDir() string {
	if p.state != "" {
		return p.state
	}
	return homeRoots(p.home).StateDir
}

// homeRoots are the default folders of a bridge run on home, as the
// tests run it (XDG_STATE_HOME and CLAUDE_CONFIG_DIR unset).
func homeRoots(home string) paths.Roots {
	r, _ := paths.Default(home, runtime.GOOS, func(string) string { return "" })
	return r
}

// tcpGetJSON reads u over TCP with a bearer token, as a browser client
// would (the CLI never does: it uses the socket file).
func tcpGetJSON(ctx context.Context, u, token string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

// cl reaches the bridge through its socket file, as the CLI does.
func (p *bridgeProc) cl() *bridgeClient { return newClient(p.stateDir()) }

// token is the bridge's API token.
func (p *bridgeProc) token() string {
	t, _ := auth.Read(filepath.Join(p.stateDir(), tokenFile))
	return t
}

func (p *bridgeProc) kill(sig syscall.Signal) {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(sig)
	p.cmd.Wait()
}

// waitFor polls the workspace list until one satisfies ok.
func (p *bridgeProc) waitFor(ok func(apiWorkspace) bool) apiWorkspace {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		list, _ := listWorkspaces(context.Background(), p.cl(), p.token())
		for _, w := range list {
			if ok(w) {
				return w
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("no such workspace appeared")
	return apiWorkspace{}
}

// sseClient reads a workspace stream in the background, as a side panel does.
type sseClient struct {
	events chan event.Event
	cancel context.CancelFunc
}

func openStream(t testing.TB, p *bridgeProc, id string, lastID int64) *sseClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, p.cl().url(streamPath(id, 0)), nil)
	req.Header.Set("Authorization", "Bearer "+p.token())
	if lastID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatInt(lastID, 10))
	}
	resp, err := p.cl().http(0).Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("stream %s: %s", id, resp.Status)
	}
	c := &sseClient{events: make(chan event.Event, 1000), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		defer close(c.events)
		stream.Read(resp.Body, func(m stream.Message) error {
			var e event.Event
			if err := json.Unmarshal(m.Data, &e); err != nil || e.ID != m.ID || e.Type != m.Event {
				t.Errorf("bad SSE message id=%d event=%s data=%s", m.ID, m.Event, m.Data)
			}
			c.events <- e
			return nil
		})
	}()
	t.Cleanup(cancel)
	return c
}

// until collects events until pred holds for the list, or fails.
func (c *sseClient) until(t testing.TB, timeout time.Duration, pred func([]event.Event) bool) []event.Event {
	t.Helper()
	var got []event.Event
	deadline := time.After(timeout)
	for !pred(got) {
		select {
		case e, ok := <-c.events:
			if !ok {
				t.Fatalf("stream ended; got %d events: %v", len(got), kinds(got))
			}
			got = append(got, e)
		case <-deadline:
			t.Fatalf("timed out after %d events: %v", len(got), kinds(got))
		}
	}
	return got
}

func count(kind string) func([]event.Event) int {
	return func(evs []event.Event) int {
		n := 0
		for _, e := range evs {
			if e.Type == kind {
				n++
			}
		}
		return n
	}
}

func kinds(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		k := e.Type
		if e.Name != "" {
			k += ":" + e.Name
		}
		out = append(out, k)
	}
	return out
}

// transcripts lists the transcripts under a fake home, for failure reports.
func transcripts(home string) []string {
	files, _ := filepath.Glob(filepath.Join(home, ".claude", "projects", "*", "*.jsonl"))
	return files
}
