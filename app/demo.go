package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/demo"
	"conductorbridge/bridge/inject"
)

// demoCmd is `conductor-bridge demo`: the whole product alive on a
// throwaway home — a simulated Conductor with three workspaces, one paired
// with Chrome and an agent at work in it — until Ctrl-C, which removes the
// home again.
func demoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	speed := fs.Float64("speed", 1, "pace of the simulated agent (2 is twice as fast)")
	seed := fs.Uint64("seed", 0, "make the run reproducible (default: a new one each run)")
	port := fs.Int("port", 34568, "port to serve on (a free one if it is taken, or 0)")
	headless := fs.Bool("headless", false, "no menu-bar icon")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *speed <= 0 {
		return errors.New("--speed must be above 0")
	}
	if *seed == 0 {
		*seed = rand.Uint64()
	}
	home, err := os.MkdirTemp("", "conductor-bridge-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	h, err := demo.Build(ctx, home, []string{"tokyo", "osaka", "kyoto"}, *seed)
	if err != nil {
		return err
	}
	addr, err := demoAddr(*port, stderr)
	if err != nil {
		return err
	}
	c := config{Addr: addr}
	c.Home, c.StateDir, c.LogDir = home, filepath.Join(home, "state"), filepath.Join(home, "logs")
	c.ClaudeProjects, c.ConductorDB = filepath.Join(home, ".claude", "projects"), h.ConductorDB()
	c.ConductorRoot = filepath.Join(home, "conductor")
	serveArgs := []string{"--home", home, "--addr", addr, "--state-dir", c.StateDir, "--log-dir", c.LogDir,
		"--claude-projects", c.ClaudeProjects, "--conductor-db", c.ConductorDB, "--conductor-root", c.ConductorRoot}
	if *headless {
		serveArgs = append(serveArgs, "--headless")
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		if err := startDemo(ctx, c, h, *speed, *seed, stdout); err != nil && ctx.Err() == nil {
			fmt.Fprintln(stderr, "demo:", err)
			stop()
		}
	}()
	return serve(ctx, serveArgs, stderr)
}

// demoAddr is the port asked for, or a free one when that is taken (a real
// bridge may well be running).
func demoAddr(port int, stderr io.Writer) (string, error) {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if ln, err := net.Listen("tcp", addr); err == nil && port != 0 {
		ln.Close()
		return addr, nil
	} else if err == nil {
		ln.Close()
	}
	p, err := freePort()
	if err != nil {
		return "", err
	}
	if port != 0 {
		fmt.Fprintf(stderr, "port %d is taken; the demo uses %d\n", port, p)
	}
	return "127.0.0.1:" + strconv.Itoa(p), nil
}

// startDemo waits for the bridge, pairs tokyo with Chrome, prints where to
// look, and sets the simulated agent to work.
func startDemo(ctx context.Context, c config, h *demo.Home, speed float64, seed uint64, stdout io.Writer) error {
	tokyo := h.Workspaces[0]
	for {
		list, err := listWorkspaces(ctx, c.client(), c.token())
		if err == nil && len(list) >= len(h.Workspaces) {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := apiCall(ctx, c, http.MethodPost, "/api/workspaces/"+tokyo.ID+"/pair", nil, nil); err != nil {
		return fmt.Errorf("pair tokyo: %w", err)
	}
	var link struct{ URL string }
	if err := apiCall(ctx, c, http.MethodPost, "/api/viewer-link", map[string]string{"workspace": tokyo.ID}, &link); err != nil {
		return fmt.Errorf("viewer link: %w", err)
	}
	fmt.Fprintf(stdout, `Conductor Bridge demo: a simulated Conductor with 3 workspaces; an agent is at work in "tokyo", paired with Chrome.
  viewer:  %s   (works once; open it in your browser)
  API:     %s   (for browsers)
  socket:  %s   (for tools; token: %s)
  home:    %s   (removed when the demo ends)
  seed:    %d
  CLI:     export %s=%s
           (in another terminal; then every command reaches this demo: conductor-bridge workspaces,
           tail tokyo, send tokyo "please check the mobile view", usage, open --usage;
           from a clone, go run ./app <command>)
Send the agent a message from the viewer, or from that terminal.
Ctrl-C to stop.
`, link.URL, c.baseURL(), c.client().sock, filepath.Join(c.StateDir, tokenFile), c.Home, seed, stateDirEnv, shellWord(c.StateDir))

	secret, err := auth.Read(filepath.Join(c.StateDir, hookSecretFile))
	if err != nil {
		return err
	}
	agent := &demo.Agent{W: tokyo, Speed: speed, Rand: rand.New(rand.NewPCG(seed, 1)), Hooks: demoHooks(c.client(), secret)}
	return agent.Run(ctx)
}

// demoHooks calls the bridge's hook endpoint as `conductor-bridge hook`
// does, with the hook secret.
func demoHooks(cl *bridgeClient, secret string) demo.Hooks {
	return func(ctx context.Context, event string, in map[string]any) (inject.Answer, error) {
		b, _ := json.Marshal(in)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, cl.url("/hook/"+event), bytes.NewReader(b))
		if err != nil {
			return inject.Answer{}, err
		}
		req.Header.Set("Authorization", "Bearer "+secret)
		req.Header.Set("Content-Type", "application/json")
		resp, err := cl.http(0).Do(req)
		if err != nil {
			return inject.Answer{}, err
		}
		defer resp.Body.Close()
		var ans inject.Answer
		if resp.StatusCode != http.StatusOK {
			return ans, fmt.Errorf("hook %s: %s", event, resp.Status)
		}
		return ans, json.NewDecoder(resp.Body).Decode(&ans)
	}
}
