package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func gitRepo(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git missing")
		}
		t.Skip("git missing")
	}
	os.MkdirAll(dir, 0o755)
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "init"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	real, _ := filepath.EvalSymlinks(dir)
	return real
}

// TestRegisterWorktrees adopts worktrees through the API and the CLI, and
// refuses what is not a work tree; registrations survive a restart.
func TestRegisterWorktrees(t *testing.T) {
	home := t.TempDir()
	repo := gitRepo(t, filepath.Join(home, "src", "app"))
	link := filepath.Join(home, "app-link")
	os.Symlink(repo, link)
	plain := filepath.Join(home, "plain")
	os.MkdirAll(plain, 0o755)
	file := filepath.Join(home, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)

	port, _ := freePort()
	p := startBridgeProc(t, home, port)
	c := config{Addr: strings.TrimPrefix(p.base, "http://")}
	c.Home = home
	c.resolve()
	ctx := context.Background()
	reg := func(body map[string]any) (apiWorkspace, error) {
		var ws apiWorkspace
		err := apiCall(ctx, c, http.MethodPost, "/api/workspaces", body, &ws)
		return ws, err
	}

	// Through a symlink: registered at the resolved path.
	ws, err := reg(map[string]any{"directory": link})
	if err != nil || ws.Directory != repo || ws.Source != "registered" || ws.Branch != "main" {
		t.Fatalf("register via symlink: %+v %v", ws, err)
	}
	again, err := reg(map[string]any{"directory": repo})
	if err != nil || again.ID != ws.ID {
		t.Errorf("registering twice gave %q, want %q (%v)", again.ID, ws.ID, err)
	}
	for name, dir := range map[string]string{"plain directory": plain, "file": file, "missing": filepath.Join(home, "nope"), "root": "/"} {
		if _, err := reg(map[string]any{"directory": dir}); err == nil {
			t.Errorf("%s registered", name)
		}
	}
	if _, err := reg(map[string]any{"directory": "relative/path"}); err == nil {
		t.Error("relative path registered")
	}

	// A detached worktree the bridge creates, then removes.
	created, err := reg(map[string]any{"repo": repo, "detach": true})
	if err != nil || !strings.HasPrefix(created.Directory, c.StateDir) {
		t.Fatalf("create worktree: %+v %v", created, err)
	}
	if _, err := os.Stat(filepath.Join(created.Directory, ".git")); err != nil {
		t.Fatalf("created worktree has no .git: %v", err)
	}

	// Registrations persist across a restart.
	p.kill(9)
	p = startBridgeProc(t, home, port)
	list, _ := listWorkspaces(ctx, p.cl(), p.token())
	seen := map[string]bool{}
	for _, w := range list {
		seen[w.ID] = true
	}
	if !seen[ws.ID] || !seen[created.ID] {
		t.Fatalf("registrations lost in a restart: %+v", list)
	}

	// Unregister: the created worktree goes (it is clean); the adopted one stays on disk.
	out, err := runCLI(t, "unregister", created.ID, "--home", home, "--addr", c.Addr)
	if err != nil || !strings.Contains(out, "removed its worktree") {
		t.Errorf("unregister created: %v %s", err, out)
	}
	if _, err := os.Stat(created.Directory); !os.IsNotExist(err) {
		t.Error("created worktree still on disk")
	}
	if err := apiCall(ctx, c, http.MethodDelete, "/api/workspaces/"+ws.ID, nil, nil); err != nil {
		t.Errorf("unregister adopted: %v", err)
	}
	if _, err := os.Stat(repo); err != nil {
		t.Error("adopted worktree removed from disk")
	}
	list, _ = listWorkspaces(ctx, p.cl(), p.token())
	for _, w := range list {
		if w.ID == ws.ID || w.ID == created.ID {
			t.Errorf("still listed after unregister: %+v", w)
		}
	}
	// The CLI's register.
	out, err = runCLI(t, "register", repo, "--home", home, "--addr", c.Addr)
	if err != nil || !strings.Contains(out, ws.ID) {
		t.Errorf("register CLI: %v %s", err, out)
	}
}

// TestAutoHooks installs the hooks into a Conductor workspace as soon as
// the bridge finds it, when asked to — never into a plain Claude Code
// project, and never without --auto-hooks.
func TestAutoHooks(t *testing.T) {
	home := t.TempDir()
	plain, _ := plainProject(t, home, "plain")
	repo := gitRepo(t, filepath.Join(home, "conductor", "repos", "app"))
	tokyo := filepath.Join(home, "conductor", "workspaces", "app", "tokyo")
	if out, err := exec.Command("git", "-C", repo, "worktree", "add", "-q", "--detach", tokyo).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v %s", err, out)
	}
	p := startBridgeProc(t, home, 0)
	p.waitFor(func(w apiWorkspace) bool { return w.Name == "tokyo" })
	if _, err := os.Stat(settingsFile(tokyo)); !os.IsNotExist(err) {
		t.Fatal("hooks installed without --auto-hooks")
	}
	p.kill(9)

	port, _ := freePort()
	cmd := exec.Command(binary, "serve", "--headless", "--auto-hooks", "--home", home, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	cmd.Env = append(os.Environ(), "CLAUDE_CONFIG_DIR=", "XDG_STATE_HOME=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(settingsFile(tokyo)); err == nil && strings.Contains(string(b), "hook stop") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("--auto-hooks did not install the hooks into the Conductor workspace")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(settingsFile(plain)); !os.IsNotExist(err) {
		t.Error("--auto-hooks wrote into a plain Claude Code project")
	}
}

func TestSecondBridgeOnOneStateDirRefused(t *testing.T) {
	home := t.TempDir()
	startBridgeProc(t, home, 0)
	port, _ := freePort()
	out, err := runCLI(t, "serve", "--headless", "--home", home, "--addr", "127.0.0.1:"+strconv.Itoa(port))
	if err == nil || !strings.Contains(out, "another Conductor Bridge is running") {
		t.Errorf("second bridge on the same state dir: %v %q", err, out)
	}
}
