package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"conductorbridge/bridge/agent"
	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/inject"
	"conductorbridge/bridge/localsock"
	"conductorbridge/bridge/proc"
)

// Hook calls get a short bound: a hook must never stall the agent. The
// waiting rewake hook is the exception, and Claude Code runs it in the
// background.
const (
	hookTimeout    = 5 * time.Second
	maxHookInput   = 4 << 20
	rewakeRetryMax = 10 * time.Second
)

// runHook is `conductor-bridge hook <event>`, run by Claude Code. It relays
// its stdin to the running bridge and prints the answer. Whatever goes
// wrong — no bridge, a slow one, garbage — it exits 0 with no output, so
// the user's agent carries on as if there were no hook.
func runHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var c config
	c.register(fs)
	scope := fs.String("scope", "", `"user" for hooks in the user's own settings`)
	if len(args) == 0 || fs.Parse(args[1:]) != nil || c.resolve() != nil {
		return 0
	}
	event, drivers := args[0], c.agents
	notify := inject.Notify(listAs[inject.HookAgent](drivers), event)
	if !notify && !slices.Contains(inject.Events(nil), event) {
		return 0
	}
	q := url.Values{}
	if *scope == "user" {
		q.Set("scope", "user")
	}
	// Under Conductor the agent (and so this hook) has its workspace's path
	// in the environment: it places the call even before a scan found
	// the session. This reads the hook's own environment, never the agent's.
	if p := os.Getenv("CONDUCTOR_WORKSPACE_PATH"); p != "" && filepath.IsAbs(p) {
		q.Set("workspace_path", p)
	}
	// The agent's pid places its session's process when the process's
	// arguments name no session (a plain `claude` run). Claude Code may
	// run the hook through a shell: the agent is the first ancestor that
	// is an agent's process. Only an agent whose hook calls name their
	// process (agent.Hooked) sends it: Codex places its threads by its
	// own arguments, so a walk that meets Codex first (its hooks, or a
	// Codex run inside a Claude Code session's tool) sends none.
	if !notify {
		var found agent.Agent
		pid := proc.Ancestor(os.Getppid(), func(comm string, args []string) bool {
			found = processAgent(drivers, comm, args)
			return found != nil
		})
		if _, hooked := found.(agent.Hooked); pid > 0 && hooked {
			q.Set("pid", strconv.Itoa(pid))
		}
	}
	path := event
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var in []byte
	var err error
	if r := notifyReaderOf(drivers, event); r != nil {
		in, err = r.NotifyInput(fs.Args())
	} else {
		in, err = io.ReadAll(io.LimitReader(stdin, maxHookInput+1))
	}
	if err != nil || len(in) > maxHookInput || !json.Valid(in) {
		return 0
	}
	secret, err := auth.Read(filepath.Join(c.StateDir, hookSecretFile))
	if err != nil {
		return 0 // the bridge never ran here
	}
	// The bridge's socket file, never its TCP port: whoever listens there
	// while the bridge is down would get the secret, and its answer would
	// reach the agent as the person's own words.
	cl := c.client()
	var ans inject.Answer
	if event == inject.HookRewake {
		pid, ok := canWaitForRewake(os.Getenv)
		if !ok {
			return 0 // this Claude Code would wait for us: never stall it
		}
		// Claude Code waits for its rewake hooks before it exits: go as
		// soon as it is gone or going.
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			for proc.Alive(pid) {
				select {
				case <-wctx.Done():
					return
				case <-time.After(time.Second):
				}
			}
			cancel()
		}()
		ans, err = waitRewake(wctx, cl, secret, path, in)
	} else {
		cctx, cancel := context.WithTimeout(ctx, hookTimeout)
		ans, err = callHook(cctx, cl, secret, path, in)
		cancel()
	}
	if err != nil || (ans.Exit != 0 && ans.Exit != 2) {
		return 0
	}
	io.WriteString(stdout, ans.Stdout)
	io.WriteString(stderr, ans.Stderr)
	return ans.Exit
}

// notifyReader is an agent whose notify program (inject.Notifier: Codex's
// notify) is told what happened in its arguments, not on stdin:
// NotifyInput turns them into the hook's input (inject.HookInput's JSON),
// or an error for a call not to relay.
type notifyReader interface {
	inject.Notifier
	NotifyInput(args []string) ([]byte, error)
}

// notifyReaderOf is the agent of drivers whose notify program calls the
// hook as event, nil if none.
func notifyReaderOf(drivers []agent.Agent, event string) notifyReader {
	for _, r := range listAs[notifyReader](drivers) {
		if r.NotifyHook() == event {
			return r
		}
	}
	return nil
}

// waitRewake long-polls the bridge for a message to wake the agent with.
// A bridge that restarts meanwhile is waited for, so an idle agent stays
// wakeable; Claude Code ends the hook at its timeout. A bridge that is not
// running at all is not waited for, nor one whose socket is not safe.
func waitRewake(ctx context.Context, cl *bridgeClient, secret, path string, in []byte) (inject.Answer, error) {
	backoff := 500 * time.Millisecond
	for attempt := 0; ; attempt++ {
		ans, err := callHook(ctx, cl, secret, path, in)
		if err == nil {
			return ans, nil
		}
		down := errors.Is(err, localsock.ErrNotRunning)
		if (attempt == 0 && down) || errors.Is(err, localsock.ErrUnsafe) {
			return ans, err
		}
		var ne net.Error
		if !errors.As(err, &ne) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) && !down {
			return ans, err // an answer we do not understand: give up
		}
		select {
		case <-ctx.Done():
			return ans, ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, rewakeRetryMax)
	}
}

func callHook(ctx context.Context, cl *bridgeClient, secret, path string, in []byte) (inject.Answer, error) {
	var ans inject.Answer
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cl.url("/hook/"+path), bytes.NewReader(in))
	if err != nil {
		return ans, err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.http(0).Do(req)
	if err != nil {
		return ans, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return ans, errors.New(resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return ans, err
	}
	if err := json.Unmarshal(body, &ans); err != nil {
		return ans, errors.New("garbled answer")
	}
	return ans, nil
}

// hookOutput is what main does with runHook: exit with its code.
func hookMain(ctx context.Context, args []string) {
	os.Exit(runHook(ctx, args, os.Stdin, os.Stdout, os.Stderr))
}
