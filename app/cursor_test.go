package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/cursor"
	"conductorbridge/bridge/event"
	"conductorbridge/testkit/cursortest"
	"conductorbridge/testkit/eventtest"
)

// cursorStore writes, at the store the Cursor SDK keeps for work under
// home, the store the real SDK wrote for one run (a tool call, usage;
// bridge/agent/cursor/testdata/research/tool.sql), in WAL mode as the SDK
// keeps it, its agent placed in work and updated now. It returns the SDK
// side's connection and the agent's id.
func cursorStore(t *testing.T, home, work string) (*sql.DB, string) {
	t.Helper()
	dump := filepath.Join("..", "bridge", "agent", "cursor", "testdata", "research", "tool.sql")
	db := cursortest.LoadStore(t, dump, filepath.Join(cursor.StoreDir(home, work), cursor.DBName))
	now := time.Now().UTC().Format(time.RFC3339Nano) // within discovery's window of recent runs
	if _, err := db.Exec("UPDATE agents SET workspace_ref = ?, updated_at = ?", work, now); err != nil {
		t.Fatal(err)
	}
	return db, "agent-672041a6-889e-4d0c-b9bf-af813a1687d4"
}

// cursorRun writes run turn of the agent as the SDK does: the run row,
// its events one commit each (an answer, its usage: in and out tokens),
// then the run row finished with its usage and the agent updated. Its
// finished_at is its FINISHED event's time, 5 s after its start, so the
// turn is the same whether the bridge reads that event before the run
// row is updated or after (cursor's TestEndReadBeforeTheRunRow tells the
// two apart).
func cursorRun(t *testing.T, db *sql.DB, agentID string, turn int, answer string, in, out int) {
	t.Helper()
	run := fmt.Sprintf("run-00000000-0000-4000-8000-%012d", turn)
	day := fmt.Sprintf("2026-12-07T05:%02d:", turn)
	msg := func(m map[string]any) string {
		m["agent_id"], m["run_id"] = agentID, run
		b, _ := json.Marshal(map[string]any{"schemaVersion": 1, "type": "sdk_message", "agentId": agentID, "runId": run, "message": m})
		return string(b)
	}
	usage := fmt.Sprintf(`{"inputTokens":%d,"outputTokens":%d,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":%d}`, in, out, in+out)
	var u map[string]any
	_ = json.Unmarshal([]byte(usage), &u)
	events := []string{
		msg(map[string]any{"type": "request", "request_id": run}),
		msg(map[string]any{"type": "status", "status": "RUNNING"}),
		msg(map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": answer}}}}),
		msg(map[string]any{"type": "usage", "usage": u}),
		msg(map[string]any{"type": "status", "status": "FINISHED"}),
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO runs (run_id, agent_id, turn_number, status, model, created_at, updated_at, started_at)
		VALUES (?, ?, ?, 'RUNNING', 'auto', ?, ?, ?)`, run, agentID, turn, day+"00.000Z", day+"00.000Z", day+"00.000Z")
	for i, e := range events {
		exec(`INSERT INTO run_events (run_id, seq, offset, event_type, payload_json, created_at) VALUES (?, ?, ?, 'run_stream_event', ?, ?)`,
			run, i+1, fmt.Sprint(i+1), e, fmt.Sprintf("%s%02d.000Z", day, i+1))
	}
	exec(`UPDATE runs SET status = 'FINISHED', usage_json = ?, finished_at = ?, updated_at = ? WHERE run_id = ?`, usage, day+"05.000Z", day+"05.000Z", run)
	exec(`UPDATE agents SET updated_at = ?`, time.Now().UTC().Format(time.RFC3339Nano))
}

// TestCursorInAPlainFolderStreams: an SDK agent run in a plain folder is
// listed in that folder's workspace (no route takes it a message), its
// store's run streamed (the answer, the tool call and its result, the
// turn's usage), and a run the SDK writes while the bridge runs streams
// too (the store's WAL wakes its reader), once, and idle after it; a run
// written while no bridge runs is streamed by the next, nothing twice.
func TestCursorInAPlainFolderStreams(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	work, err := filepath.EvalSymlinks(work)
	if err != nil {
		t.Fatal(err)
	}
	db, agentID := cursorStore(t, home, work)

	b, stop := startServe(t, agentList(), "--home", home)
	// waitTurns waits until the agent's stream on b holds n
	// turn_complete events and returns its events.
	waitTurns := func(n int) (string, []event.Event) {
		t.Helper()
		changes := b.engine.Changes()
		guard := time.After(60 * time.Second) // a hang guard, not a timing assertion
		for {
			if ws, evs := cursorEvents(t, b, work, agentID); len(eventtest.OfType(evs, event.TurnComplete)) >= n {
				return ws, evs
			}
			select {
			case <-changes:
			case <-time.After(100 * time.Millisecond): // topics publish without a change
			case <-guard:
				t.Fatalf("%d turns of %s in %s not streamed; workspaces: %+v", n, agentID, work, b.engine.Workspaces())
			}
		}
	}
	ws, evs := waitTurns(1)
	tc := eventtest.OfType(evs, event.TurnComplete)
	if tu := eventtest.OfType(evs, event.ToolUse); len(tu) != 1 || tu[0].Name != "read" || tu[0].Input != "/tmp/cursorsdk/ws/hello.txt" {
		t.Errorf("tool calls %+v, want the recorded read of hello.txt", tu)
	}
	if tc[0].Usage != (event.Usage{InputTokens: 11, OutputTokens: 7}) {
		t.Errorf("first turn %+v, want the recorded 11 in, 7 out", tc[0])
	}
	si, ok := b.engine.Session(ws, agentID)
	if !ok || si.Agent != "cursor" || si.Source != "cursor" || si.Label != "Cursor" || si.MessagesBlocked == "" {
		t.Errorf("listed as %+v (%v), want Cursor's, streamed from its store, saying messages cannot reach it", si, ok)
	}

	cursorRun(t, db, agentID, 2, "The second answer.", 40, 9)
	_, evs = waitTurns(2)
	if si, _ := b.engine.Session(ws, agentID); si.Status != event.StateIdle {
		t.Errorf("status %q after the runs, want idle", si.Status)
	}

	// The bridge stops; a third run is written meanwhile; a new bridge
	// streams it from where the journal says the old one stopped.
	stop()
	cursorRun(t, db, agentID, 3, "The third answer.", 70, 12)
	b, _ = startServe(t, agentList(), "--home", home)
	_, evs = waitTurns(3)
	tc = eventtest.OfType(evs, event.TurnComplete)
	want := []event.Usage{{InputTokens: 11, OutputTokens: 7}, {InputTokens: 40, OutputTokens: 9}, {InputTokens: 70, OutputTokens: 12}}
	if len(tc) != len(want) {
		t.Fatalf("turns %+v, want %d", tc, len(want))
	}
	for i, w := range want[1:] {
		if tc[i+1].Usage != w || tc[i+1].DurationMS != 5000 {
			t.Errorf("turn %d: %+v, want %+v in 5 s", i+2, tc[i+1], w)
		}
	}
	var answers []string
	for _, e := range eventtest.OfType(evs, event.Assistant) {
		answers = append(answers, e.Content)
	}
	if strings.Join(answers, "|") != "Hello from the fake server.|The second answer.|The third answer." {
		t.Errorf("answers %q, want each run's once", answers)
	}
}

// cursorEvents are the events of session in the workspace of dir, and
// that workspace's id.
func cursorEvents(t *testing.T, b *bridge, dir, session string) (string, []event.Event) {
	t.Helper()
	for _, w := range b.engine.Workspaces() {
		if w.Directory != dir {
			continue
		}
		topic, ok := b.engine.Topic(w.ID)
		if !ok {
			return "", nil
		}
		var evs []event.Event
		for _, it := range topic.History(0) {
			if it.SessionID != session {
				continue
			}
			var e event.Event
			if err := json.Unmarshal(it.Data, &e); err != nil {
				t.Fatal(err)
			}
			evs = append(evs, e)
		}
		return w.ID, evs
	}
	return "", nil
}

// TestUsageCountsTheCursorSDK: `usage` counts an SDK agent's runs in a
// plain folder from the SDK's store, as serve's agent list has it: the
// recorded run's 11 in and 7 out, and a second run's 40 and 9, two turns
// of the agent's session.
func TestUsageCountsTheCursorSDK(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	db, agentID := cursorStore(t, home, work)
	cursorRun(t, db, agentID, 2, "The second answer.", 40, 9)
	out, err := runCLI(t, "usage", "--home", home, "--tz", "UTC", "--json", "--by", "session",
		"--state-dir", t.TempDir(), "--addr", "127.0.0.1:1")
	if err != nil {
		t.Fatalf("usage: %v %s", err, out)
	}
	rep := readUsageJSON(t, out)
	if rep.Total.Turns != 2 || rep.Total.Usage.InputTokens != 51 || rep.Total.Usage.OutputTokens != 16 ||
		len(rep.Rows) != 1 || rep.Rows[0].Agent != "cursor" || rep.Rows[0].Turns != 2 {
		t.Errorf("usage --json: %+v, want the agent's two turns, 51 in, 16 out", rep)
	}
}
