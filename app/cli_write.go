package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"conductorbridge/bridge/auth"
	"conductorbridge/bridge/hooks"
	"conductorbridge/bridge/inject"
)

// apiCall sends a state-changing request to the running bridge with the
// token from the state dir, and decodes the JSON answer into out.
func apiCall(ctx context.Context, c config, method, path string, body, out any) error {
	cl := c.client()
	token, err := auth.Read(filepath.Join(c.StateDir, tokenFile))
	if err != nil {
		if _, herr := probeHealth(ctx, cl); herr != nil {
			return herr // no bridge here: say where one is, if one is
		}
		return fmt.Errorf("no API token in %s: %w", c.StateDir, err)
	}
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, cl.url(path), rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := cl.http(2 * time.Minute).Do(req)
	if err != nil {
		return cl.noBridge(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 {
		var e struct{ Error string }
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s", e.Error)
		}
		return fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// clientFlags parses the shared flags of a client command; positional
// arguments may come before or after the flags.
func clientFlags(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (config, *flag.FlagSet, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(reorder(fs, args)); err != nil {
		return c, fs, err
	}
	if err := c.resolve(); err != nil {
		return c, fs, err
	}
	return c, fs, nil
}

// send queues a message for a workspace's agent, and with --wait follows it
// until Claude has it.
func send(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var wait *bool
	c, fs, err := clientFlags("send", args, stderr, func(fs *flag.FlagSet) {
		wait = fs.Bool("wait", false, "wait until the message is confirmed in the transcript")
	})
	if err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return errors.New("usage: conductor-bridge send [--wait] <workspace>[/<session>] <message…>")
	}
	cl, ws, sess, err := findTarget(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	var res struct {
		ID        string `json:"id"`
		Status    string `json:"status"`
		Position  int    `json:"position"`
		SessionID string `json:"session_id"`
	}
	body := map[string]string{"message": strings.Join(fs.Args()[1:], " ")}
	if sess != nil {
		body["session_id"] = sess.SessionID
	}
	if err := apiCall(ctx, c, http.MethodPost, "/workspace/"+ws.ID+"/session/messages", body, &res); err != nil {
		return err
	}
	to := ws.Name
	if res.SessionID != "" {
		to += " / " + res.SessionID
	}
	fmt.Fprintf(stdout, "%s %s (position %d) for %s\n", res.ID, res.Status, res.Position, field(to))
	if !*wait {
		return nil
	}
	state := res.Status
	for {
		var list struct{ Messages []inject.Message }
		if err := getJSON(ctx, cl, "/workspace/"+ws.ID+"/session/messages", c.token(), &list); err != nil {
			return err
		}
		for _, m := range list.Messages {
			if m.ID == res.ID && m.State != state {
				state = m.State
				fmt.Fprintf(stdout, "%s %s\n", m.ID, state)
			}
		}
		switch state {
		case inject.Confirmed:
			return nil
		case inject.Cancelled:
			return errors.New("message was cancelled")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func findWorkspace(ctx context.Context, c config, q string) (apiWorkspace, error) {
	list, err := listWorkspaces(ctx, c.client(), c.token())
	if err != nil {
		return apiWorkspace{}, err
	}
	return pickWorkspace(list, q)
}

// register adopts a worktree (or creates one with --repo) as a workspace.
func register(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var repo *string
	c, fs, err := clientFlags("register", args, stderr, func(fs *flag.FlagSet) {
		repo = fs.String("repo", "", "create a detached worktree of this repository's HEAD instead")
	})
	if err != nil {
		return err
	}
	body := map[string]any{}
	switch {
	case *repo != "" && fs.NArg() == 0:
		abs, _ := filepath.Abs(*repo)
		body["repo"], body["detach"] = abs, true
	case *repo == "" && fs.NArg() == 1:
		abs, _ := filepath.Abs(fs.Arg(0))
		body["directory"] = abs
	default:
		return errors.New("usage: conductor-bridge register <dir> | register --repo <repo>")
	}
	var ws apiWorkspace
	if err := apiCall(ctx, c, http.MethodPost, "/api/workspaces", body, &ws); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "registered %s: %s\n", ws.ID, ws.Directory)
	return nil
}

func unregister(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, fs, err := clientFlags("unregister", args, stderr, nil)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("usage: conductor-bridge unregister <workspace>")
	}
	ws, err := findWorkspace(ctx, c, fs.Arg(0))
	if err != nil {
		return err
	}
	var res struct {
		Removed bool   `json:"removed"`
		Kept    string `json:"kept"`
	}
	if err := apiCall(ctx, c, http.MethodDelete, "/api/workspaces/"+ws.ID, nil, &res); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "unregistered %s", ws.ID)
	switch {
	case res.Removed:
		fmt.Fprint(stdout, " and removed its worktree")
	case res.Kept != "":
		fmt.Fprintf(stdout, "; worktree kept: %s", res.Kept)
	}
	fmt.Fprintln(stdout)
	return nil
}

// hooksCmd installs, removes or shows the bridge's hooks.
func hooksCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: conductor-bridge hooks install|uninstall|status [<workspace>|--all] [--user] [--codex]")
	}
	verb := args[0]
	var all, user, withCodex *bool
	c, fs, err := clientFlags("hooks", args[1:], stderr, func(fs *flag.FlagSet) {
		all = fs.Bool("all", false, "every workspace")
		user = fs.Bool("user", false, "the user's ~/.claude/settings.json instead of a workspace")
		withCodex = fs.Bool("codex", false, "Codex's config.toml ($CODEX_HOME) instead of a workspace: its Stop hook and notify program")
	})
	if err != nil {
		return err
	}
	if *withCodex {
		return codexHooksCmd(c, verb, stdout)
	}
	var files []string
	switch {
	case *user:
		files = []string{c.ClaudeSettings}
	case *all:
		list, err := workspaceList(ctx, c, stderr)
		if err != nil {
			return err
		}
		for _, w := range list {
			files = append(files, settingsFile(w.Directory))
		}
	case fs.NArg() == 1:
		dir := fs.Arg(0)
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			list, err := workspaceList(ctx, c, stderr)
			if err != nil {
				return err
			}
			w, err := pickWorkspace(list, dir)
			if err != nil {
				return err
			}
			dir = w.Directory
		}
		abs, _ := filepath.Abs(dir)
		files = []string{settingsFile(abs)}
	default:
		return errors.New("name a workspace, or pass --all or --user")
	}
	spec, err := hookSpec(c)
	if err != nil {
		return err
	}
	spec.UserScope = *user
	failed := 0
	for _, f := range files {
		var changed bool
		var err error
		switch verb {
		case "install":
			changed, err = hooks.Install(f, spec)
		case "uninstall":
			changed, err = hooks.Uninstall(f)
		case "status":
			var on bool
			var bin string
			on, bin, err = hooks.Status(f)
			if err == nil {
				state := "not installed"
				if on {
					state = "installed → " + bin
					if _, serr := os.Stat(bin); serr != nil {
						state += " (MISSING: run hooks install again)"
					}
				}
				fmt.Fprintf(stdout, "%s: %s\n", f, state)
			}
		default:
			return fmt.Errorf("unknown hooks command %q", verb)
		}
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "%s: %v\n", f, err)
			continue
		}
		if verb != "status" {
			word := "unchanged"
			if changed {
				word = verb + "ed"
			}
			fmt.Fprintf(stdout, "%s: %s\n", f, word)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d settings files failed", failed, len(files))
	}
	return nil
}

func settingsFile(dir string) string { return filepath.Join(dir, ".claude", "settings.local.json") }

// hookSpec is how installed hooks call this binary: by its absolute path,
// with this state dir.
func hookSpec(c config) (hooks.Spec, error) {
	exe, err := os.Executable()
	if err != nil {
		return hooks.Spec{}, err
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return hooks.Spec{}, err
	}
	state, err := filepath.Abs(c.StateDir)
	return hooks.Spec{Binary: exe, StateDir: state}, err
}

// workspaceList asks the running bridge, else scans directly.
func workspaceList(ctx context.Context, c config, stderr io.Writer) ([]apiWorkspace, error) {
	list, err := listWorkspaces(ctx, c.client(), c.token())
	if err == nil {
		return list, nil
	}
	if !couldScan(err) {
		return nil, err
	}
	fmt.Fprintf(stderr, "%v; scanning directly\n", err)
	return scanDirect(ctx, c)
}
