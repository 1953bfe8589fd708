package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/event"
	usagerep "conductorbridge/bridge/usage"
	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/fakemodel"
)

// TestOneTurnOneTurnComplete: real Claude Code 2.1.328 takes a message at
// each moment a person may send one — busy (a tool runs), waiting (its
// reply is held at the end of a turn, where the Stop hook hands a message
// over and Claude Code goes on with the same turn) and idle (the rewake
// hook wakes it) — and the bridge's stream has exactly as many
// turn_complete events for the session as Claude Code printed results,
// and `usage` counts the same turns.
func TestOneTurnOneTurnComplete(t *testing.T) {
	e := newAgentEnv(t)
	tool, release := gate(t)
	hold := make(chan struct{})
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Bash(tool)),
		fakemodel.Reply(fakemodel.Text("Busy: switching to the mobile view.")),
		fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("The page looks fine.")}, Hold: hold},
		fakemodel.Reply(fakemodel.Text("Waiting: checking the tablet view too.")),
		fakemodel.Reply(fakemodel.Text("Resumed.")),
		fakemodel.Reply(fakemodel.Text("Idle: the footer is fixed.")),
	)
	e.start(0)
	// At a turn's end both Stop hooks start, and a message already queued
	// goes to whichever asks first: the first run keeps the synchronous
	// one only, so the waiting message goes on with the turn; the second
	// (the same session, resumed) has both, and the idle one wakes it.
	e.keepOneStopHook(false)
	ctx, s := e.session(fm, claudetest.Options{})
	results := 0

	// Busy: a tool runs.
	s.Send("check the page")
	waitRequest(t, fm, "check the page")
	ws := e.versionRead().ID
	busyID := e.post(ws, "busy: test the mobile view")
	release()
	waitRequest(t, fm, "busy: test the mobile view")
	results += waitResult(ctx, t, s)

	// Waiting: the turn's last reply is held while the message is queued.
	s.Send("look again")
	waitRequest(t, fm, "look again")
	waitingID := e.post(ws, "waiting: and the tablet view")
	close(hold)
	waitRequest(t, fm, "waiting: and the tablet view")
	results += waitResult(ctx, t, s)
	e.deliveredVia(ws, busyID, "post_tool_use")
	e.deliveredVia(ws, waitingID, "stop")
	session := s.SessionID()
	results += countResults(t, s, results)
	endSession(s)

	// Idle: the turn is over; the rewake hook wakes the agent.
	if out, err := runCLI(t, "hooks", "install", e.dir, "--home", e.home); err != nil {
		t.Fatalf("hooks install: %v\n%s", err, out)
	}
	ctx, s = e.session(fm, claudetest.Options{Resume: session})
	s.Send("go on")
	waitRequest(t, fm, "go on")
	results += waitResult(ctx, t, s)
	idleID := e.post(ws, "idle: fix the footer")
	waitRequest(t, fm, "idle: fix the footer")
	results += waitResult(ctx, t, s)
	e.deliveredVia(ws, idleID, "rewake")
	results += countResults(t, s, 2)

	count := func(evs []event.Event) int {
		return countEvents(evs, func(ev event.Event) bool { return ev.Type == event.TurnComplete && ev.SessionID == session })
	}
	evs := openStream(t, e.p, ws, 0).until(t, 30*time.Second, func(evs []event.Event) bool {
		return count(evs) >= results && evs[len(evs)-1].ID >= e.workspaceByID(ws).LastEventID
	})
	if n := count(evs); n != results {
		t.Errorf("the stream has %d turn_complete events for the session; Claude Code printed %d results", n, results)
		for _, ev := range evs {
			b, _ := json.Marshal(ev)
			t.Logf("%s", b)
		}
	}

	out, err := runCLI(t, "usage", "--home", e.home, "--by", "session", "--json")
	if err != nil {
		t.Fatalf("usage: %v\n%s", err, out)
	}
	var rep usagerep.Report
	if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &rep); err != nil {
		t.Fatalf("usage --json: %v\n%s", err, out)
	}
	turns := -1
	for _, r := range rep.Rows {
		if strings.HasSuffix(r.Key, session) {
			turns = r.Turns
		}
	}
	if turns != results {
		t.Errorf("usage counts %d turns for the session; Claude Code printed %d results (rows: %+v)", turns, results, rep.Rows)
	}
	t.Logf("Claude Code results %d, stream turn_complete %d, usage turns %d", results, count(evs), turns)
}

// waitResult waits for the session's next result; it counts one.
func waitResult(ctx context.Context, t testing.TB, s *claudetest.Session) int {
	t.Helper()
	if _, err := s.WaitResult(ctx); err != nil {
		t.Fatal(err)
	}
	return 1
}

// countResults returns how many more results than seen the run printed
// (none, unless a turn printed two).
func countResults(t testing.TB, s *claudetest.Session, seen int) int {
	n := 0
	for _, f := range agentFrames(t, s.Events()) {
		if f.Type == "result" {
			n++
		}
	}
	return n - seen
}
