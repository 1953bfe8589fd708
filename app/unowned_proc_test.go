//go:build linux || darwin

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/proc"
	"conductorbridge/testkit/agenttest"
)

// On the real process table: a live process named claude in a session's
// folder, though it names another session (a tab after /clear), keeps
// the session owned; once it is killed, reaped or not yet (a zombie), the
// session is unowned; a pid that now runs another program owns nothing.
func TestUnownedFromTheProcessTable(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir := mkdirs(t, root, "demo")
	const session, another = "0f0f0f0f-1111-4222-8333-444444444444", "1f1f1f1f-1111-4222-8333-444444444444"
	scan := func(context.Context) ([]discover.Workspace, error) { return nil, nil }
	a := &agentScanner{scan: scan, agents: agentList(), procs: proc.List, cwd: proc.Cwd, zombie: proc.Zombie}
	unowned := func() bool {
		t.Helper()
		if _, err := a.Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		at, free := a.Unowned(dir, session, "claude")
		if at.IsZero() {
			t.Fatal("the process table was not read")
		}
		return free
	}

	// A shell renamed claude, naming another session; reuse makes the
	// same pid run a program that is no agent.
	_, reuse := agenttest.StartAs(t, "claude", dir, "--resume", another)
	if unowned() {
		t.Error("unowned with a claude in its folder")
	}
	reuse()
	if !unowned() {
		t.Error("owned by a pid that runs another program")
	}

	again := exec.Command("bash", "-c", `exec -a claude sleep 600`)
	again.Dir = dir
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { again.Process.Kill(); again.Wait() })
	agenttest.WaitArgv0(t, again.Process.Pid, "claude")
	if unowned() {
		t.Error("unowned with a claude in its folder")
	}
	// Killed, it is a zombie until reaped: neither writes.
	again.Process.Kill()
	deadline := time.Now().Add(10 * time.Second)
	for !proc.Zombie(again.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("the killed agent never showed as a zombie")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !unowned() {
		t.Error("owned by a killed agent not reaped yet")
	}
	again.Wait()
	if !unowned() {
		t.Error("owned once its agent was killed and reaped")
	}
}
