package engine

import (
	"context"
	"os/exec"
	"runtime"
	"testing"

	"conductorbridge/bridge/discover"
)

// fakeAgent starts a process the process table shows as Claude Code (its
// argv[0] is "claude"), stopped when the test ends.
func fakeAgent(t *testing.T, name string) *exec.Cmd {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	cmd := &exec.Cmd{Path: sleep, Args: []string{name, "60"}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// A hook's pid is its session's when the session's process arguments
// named none; arguments win; the pid of something that is not Claude
// Code is ignored; a session that ends, or whose process dies, loses it.
func TestHookPIDsPlaceSessions(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no process table here")
	}
	h := newHome(t)
	const a, b = "aaaaaaaa-1111-4111-8111-0000000000c1", "bbbbbbbb-1111-4111-8111-0000000000c2"
	dir, pa, pb := h.twoSessions("pids", a, b)
	h.write(pa, prompt(a, "A"), answer(a, "ma", "A-answer", "end_turn"))
	h.write(pb, prompt(b, "B"), answer(b, "mb", "B-answer", "end_turn"))
	const fromArgs = 4242 // what the scan read from A's process's arguments
	r, ts := h.startTabs()
	ts.set(dir,
		discover.Session{ID: a, Agent: "claude", Transcript: pa, PID: fromArgs},
		discover.Session{ID: b, Agent: "claude", Transcript: pb},
	)
	r.eng.Rescan(context.Background())
	id := r.waitWorkspace(t, dir)
	pids := func() (int, int) {
		r.eng.do(context.Background(), id, func(*workspace) {}) // what the hooks queued is done
		in, _ := r.eng.Workspace(id)
		sa, _ := sessionOf(in, a)
		sb, _ := sessionOf(in, b)
		return sa.PID, sb.PID
	}
	waitFor(t, "both sessions listed", func() bool { pa, _ := pids(); return pa == fromArgs })

	agentA, agentB, other := fakeAgent(t, "claude"), fakeAgent(t, "claude"), fakeAgent(t, "sleep")
	for _, tc := range []struct {
		what         string
		session      string
		pid          int
		running      bool
		wantA, wantB int
	}{
		{"not Claude Code", b, other.Process.Pid, true, fromArgs, 0},
		{"B's hook", b, agentB.Process.Pid, true, fromArgs, agentB.Process.Pid},
		{"A's arguments win", a, agentA.Process.Pid, true, fromArgs, agentB.Process.Pid},
		{"B ends", b, 0, false, fromArgs, 0},
		{"B again", b, agentB.Process.Pid, true, fromArgs, agentB.Process.Pid},
	} {
		r.eng.AgentPID(id, Call{SessionID: tc.session, PID: tc.pid}, tc.running)
		if ga, gb := pids(); ga != tc.wantA || gb != tc.wantB {
			t.Errorf("%s: pids %d, %d; want %d, %d", tc.what, ga, gb, tc.wantA, tc.wantB)
		}
	}
	// B's process dies without its SessionEnd hook: the next scan sees it.
	agentB.Process.Kill()
	agentB.Wait()
	waitFor(t, "B's dead process dropped", func() bool {
		r.eng.Rescan(context.Background())
		_, gb := pids()
		return gb == 0
	})
}
