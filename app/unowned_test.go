package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/proc"
)

// fakeProc is a process of a fake table: its name, arguments and working
// directory ("" when it cannot be read).
type fakeProc struct {
	comm   string
	args   []string
	cwd    string
	zombie bool // exited, not reaped yet
}

// Unowned says no agent process can be a session's writer only when the
// whole table was read and none can be: a process naming the session, one
// in its folder or below it (naming another session or none), one naming
// the folder in its arguments, one whose folder cannot be read, a Codex
// server (its threads may be anywhere) each keep the session owned; a
// process of another agent, one elsewhere naming another session, a pid
// reused by another program do not. An agent the table cannot show, a
// folder not on this machine and an unreadable table never say unowned.
func TestUnownedFromAFakeProcessTable(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "work")
	dir, sub, other := mkdirs(t, work, "demo"), mkdirs(t, work, "demo/sub"), mkdirs(t, work, "other")
	link := filepath.Join(root, "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	const session, another = "0d0d0d0d-1111-4222-8333-444444444444", "0e0e0e0e-1111-4222-8333-444444444444"
	claude := func(cwd string, args ...string) fakeProc {
		return fakeProc{comm: "claude", args: append([]string{"claude"}, args...), cwd: cwd}
	}
	codex := func(cwd string, args ...string) fakeProc {
		return fakeProc{comm: "codex", args: append([]string{"codex"}, args...), cwd: cwd}
	}
	for _, tt := range []struct {
		name  string
		procs []fakeProc
		dir   string // the session's folder, dir if ""
		agent string // the session's agent, claude if ""
		free  bool
	}{
		{"no agent process", nil, "", "", true},
		{"one elsewhere naming another session", []fakeProc{claude(other, "--resume", another)}, "", "", true},
		{"one elsewhere naming none", []fakeProc{claude(other, "-p", "fix the build")}, "", "", true},
		{"a pid reused by another program", []fakeProc{{comm: "sleep", args: []string{"sleep", "600"}, cwd: dir}}, "", "", true},
		{"another agent's process in the folder", []fakeProc{codex(dir, "exec", "go on")}, "", "", true},
		{"one naming the session", []fakeProc{claude(other, "--resume", session)}, "", "", false},
		{"one in the folder naming none", []fakeProc{claude(dir)}, "", "", false},
		{"one in the folder naming another session", []fakeProc{claude(dir, "--resume", another)}, "", "", false},
		{"one below the folder", []fakeProc{claude(sub)}, "", "", false},
		{"one naming the folder by a relative path", []fakeProc{codex(other, "-C", "../demo")}, "", "codex", false},
		{"one naming the folder as --cd=", []fakeProc{codex(other, "--cd="+dir)}, "", "codex", false},
		{"one naming the folder through a symlink", []fakeProc{codex(root, "-C", link)}, "", "codex", false},
		{"one whose folder cannot be read", []fakeProc{claude("")}, "", "", false},
		{"one exited, not reaped yet", []fakeProc{{comm: "claude", zombie: true}}, "", "", true},
		{"a Codex app server elsewhere", []fakeProc{codex(other, "app-server")}, "", "codex", false},
		{"a Codex app server, a Claude session", []fakeProc{codex(other, "app-server")}, "", "", true},
		{"an agent the table cannot show", nil, "", "opencode", false},
		{"a folder not on this machine", nil, filepath.Join(root, "elsewhere"), "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cwds, zombies := map[int]string{}, map[int]bool{}
			var ps []proc.Process
			for i, p := range tt.procs {
				pid := 100 + i
				ps = append(ps, proc.Process{PID: pid, Comm: p.comm, Args: p.args})
				cwds[pid], zombies[pid] = p.cwd, p.zombie
			}
			a := fakeTableScanner(func() ([]proc.Process, error) { return ps, nil }, cwds)
			a.zombie = func(pid int) bool { return zombies[pid] }
			before := time.Now()
			if _, err := a.Scan(context.Background()); err != nil {
				t.Fatal(err)
			}
			d, ag := tt.dir, tt.agent
			if d == "" {
				d = dir
			}
			if ag == "" {
				ag = "claude"
			}
			at, free := a.Unowned(d, session, ag)
			if free != tt.free {
				t.Errorf("free %v, want %v", free, tt.free)
			}
			if at.Before(before) {
				t.Errorf("the scan's table read at %v, before the scan (%v)", at, before)
			}
		})
	}
	t.Run("the table cannot be read", func(t *testing.T) {
		a := fakeTableScanner(func() ([]proc.Process, error) { return nil, errors.New("no /proc") }, nil)
		if _, err := a.Scan(context.Background()); err != nil {
			t.Fatal(err)
		}
		if at, free := a.Unowned(dir, session, "claude"); !at.IsZero() || free {
			t.Errorf("table read at %v, free %v; want never, false", at, free)
		}
	})
}

// fakeTableScanner is the app's scanner on a fake process table, whose
// working directories are cwds by pid ("" or missing: unreadable).
func fakeTableScanner(procs func() ([]proc.Process, error), cwds map[int]string) *agentScanner {
	scan := func(context.Context) ([]discover.Workspace, error) { return nil, nil }
	return &agentScanner{scan: scan, agents: agentList(), procs: procs, cwd: func(pid int) (string, error) {
		if c := cwds[pid]; c != "" {
			return c, nil
		}
		return "", errors.New("unreadable")
	}}
}
