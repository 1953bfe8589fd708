package main

import (
	"testing"
	"time"

	"conductorbridge/bridge/proc"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// TestSessionPIDFromHooks runs two plain `claude` sessions in one folder,
// neither naming its session in its arguments (no --session-id, no
// --resume): the process table alone cannot tell which process runs
// which session, and the folder has two. Each session's hooks say it, so
// the listing gives each session its own process's pid.
func TestSessionPIDFromHooks(t *testing.T) {
	e := newAgentEnv(t)
	e.start(0)
	var tabs [2]*claudetest.Session
	for i, answer := range []string{"First is done.", "Second is done."} {
		fm := fakemodel.NewTest(t, fakemodel.Reply(fakemodel.Text(answer)))
		ctx, s := e.session(fm, claudetest.Options{NoSessionArg: true})
		s.Send("hello")
		if _, err := s.WaitResult(ctx); err != nil {
			t.Fatal(err)
		}
		if args, err := proc.Args(s.Pid()); err != nil || proc.SessionArg(args) != "" {
			t.Fatalf("the agent's arguments name a session (%v): %q", err, args)
		}
		tabs[i] = s
	}
	ws := e.workspace()
	var sess map[string]map[string]any
	pidOf := func(s *claudetest.Session) int {
		p, _ := sess[s.SessionID()]["pid"].(float64)
		return int(p)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		sess = e.sessionsOf(ws.ID)
		if pidOf(tabs[0]) == tabs[0].Pid() && pidOf(tabs[1]) == tabs[1].Pid() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions' pids %d and %d, want %d and %d: %v", pidOf(tabs[0]), pidOf(tabs[1]), tabs[0].Pid(), tabs[1].Pid(), sess)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The workspace's pid is its most recently active session's.
	if w := e.workspace(); w.PID != tabs[1].Pid() {
		t.Errorf("workspace pid %d, want the second session's %d", w.PID, tabs[1].Pid())
	}
}
