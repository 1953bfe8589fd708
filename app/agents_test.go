//go:build linux || darwin

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/proc"
)

// startAgent starts a real process that looks like Claude Code to the
// process table: a shell renamed claude (exec -a) with the given
// arguments, in dir. It sleeps in a child so that it stays a shell.
func startAgent(t *testing.T, dir string, args ...string) int {
	t.Helper()
	return startNamed(t, "claude", dir, args...)
}

// startNamed is startAgent with another program name (argv[0]).
func startNamed(t *testing.T, name, dir string, args ...string) int {
	t.Helper()
	sh, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	cmd := exec.Command(sh, append([]string{"-c", `exec -a ` + name + ` "$0" -c 'sleep 60; :' "$@"`, sh}, args...)...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Wait for the exec, and for the shell's child to become sleep: until
	// then the process is the outer shell, and its forked child is a
	// second process with the same name, arguments and folder, which a
	// busy machine leaves unexeced long enough for a scan to place it.
	pid := cmd.Process.Pid
	deadline := time.Now().Add(10 * time.Second)
	for {
		if a, err := proc.Args(pid); err == nil && len(a) > 0 && a[0] == name && childRuns(pid, "sleep") {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never became %s with its sleep child", pid, name)
		}
		time.Sleep(10 * time.Millisecond) // polling the process table for the condition, not waiting out a race
	}
}

// childRuns reports whether pid has a child process that has exec'd prog.
func childRuns(pid int, prog string) bool {
	ps, err := proc.List()
	if err != nil {
		return false
	}
	for _, p := range ps {
		if len(p.Args) == 0 || filepath.Base(p.Args[0]) != prog {
			continue
		}
		if _, ppid, err := proc.Parent(p.PID); err == nil && ppid == pid {
			return true
		}
	}
	return false
}

// TestAgentPIDsFromTheProcessTable places real processes: a session by
// its --resume argument wherever its process runs, a session-less agent
// by its working directory, an agent naming a session no workspace has
// by its directory too; a process that is not Claude is never placed.
func TestAgentPIDsFromTheProcessTable(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dirA, dirB, dirC, dirD := mkdirs(t, root, "a"), mkdirs(t, root, "b"), mkdirs(t, root, "c"), mkdirs(t, root, "d")
	const known = "0a0a0a0a-1111-4222-8333-444444444444"
	const unknown = "0b0b0b0b-1111-4222-8333-444444444444"
	resumed := startAgent(t, dirB, "--resume", known) // runs in b, resumes a's session
	const tab = "0c0c0c0c-1111-4222-8333-444444444444"
	conductorTab := startAgent(t, dirA, "--permission-prompt-tool", "stdio", "--session-id", tab) // as Conductor starts a tab
	plain := startAgent(t, dirB)
	stranger := startAgent(t, dirC, "--session-id", unknown)
	other := exec.Command("sleep", "60") // not claude, in d
	other.Dir = dirD
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })

	scan := func(context.Context) ([]discover.Workspace, error) {
		return []discover.Workspace{
			{ID: "a", Directory: dirA, Sessions: []discover.Session{{ID: known}, {ID: "never-running"}, {ID: tab}}},
			{ID: "b", Directory: dirB},
			{ID: "c", Directory: dirC},
			{ID: "d", Directory: dirD},
		}, nil
	}
	a := &agentScanner{scan: scan, agents: agentList(), procs: proc.List, cwd: proc.Cwd}
	ws, err := a.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		what      string
		got, want int
	}{
		{"session by --resume", ws[0].Sessions[0].PID, resumed},
		{"workspace of that session", ws[0].PID, resumed},
		{"session with no process", ws[0].Sessions[1].PID, 0},
		{"session-less agent by cwd", ws[1].PID, plain},
		{"unknown session by cwd", ws[2].PID, stranger},
		{"not claude", ws[3].PID, 0},
		{"a Conductor tab by --session-id", ws[0].Sessions[2].PID, conductorTab},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: pid %d, want %d", tt.what, tt.got, tt.want)
		}
	}
	// Only the tab started with --permission-prompt-tool stdio sends its
	// permission prompts to Conductor rather than to the person.
	if !ws[0].Sessions[2].StdioPrompts || ws[0].Sessions[0].StdioPrompts {
		t.Errorf("stdio prompts: tab %v, resumed session %v; want true, false", ws[0].Sessions[2].StdioPrompts, ws[0].Sessions[0].StdioPrompts)
	}
}

func mkdirs(t *testing.T, root, name string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCodexPIDsFromTheProcessTable places real processes named codex: a
// thread by its `resume <id>` argument, and a Codex run naming no thread
// by its directory, where it holds every Codex session that has no
// process of its own (which one it writes cannot be told) but no Claude
// session.
func TestCodexPIDsFromTheProcessTable(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dirA, dirB := mkdirs(t, root, "a"), mkdirs(t, root, "b")
	const thread, idle = "019a0000-1111-7222-8333-444444444444", "019a0000-1111-7222-8333-555555555555"
	resumed := startNamed(t, "codex", dirB, "exec", "resume", thread, "go on")
	fresh := startNamed(t, "codex", dirB)
	scan := func(context.Context) ([]discover.Workspace, error) {
		return []discover.Workspace{
			{ID: "a", Directory: dirA, Sessions: []discover.Session{{ID: thread, Agent: "codex"}}},
			{ID: "b", Directory: dirB, Sessions: []discover.Session{{ID: idle, Agent: "codex"}, {ID: "claude-tab", Agent: "claude"}}},
		}, nil
	}
	a := &agentScanner{scan: scan, agents: agentList(), procs: proc.List, cwd: proc.Cwd}
	ws, err := a.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		what      string
		got, want int
	}{
		{"thread by resume <id>", ws[0].Sessions[0].PID, resumed},
		{"a Codex session of the fresh run's folder", ws[1].Sessions[0].PID, fresh},
		{"a Claude session there", ws[1].Sessions[1].PID, 0},
		{"the fresh run's workspace", ws[1].PID, fresh},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: pid %d, want %d", tt.what, tt.got, tt.want)
		}
	}
}
