package cursortest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/fakemodel"
)

// script is what the fake backend hands out in the tests and the
// recording: a turn that thinks, reads a file and runs a command, a
// second turn on the same agent, and a run the backend fails. Every
// expected value in the tests comes from here.
type script struct {
	first, second, failed fakemodel.Turn
	readPath, fileContent string
	command, stdout       string
	thinking              string
	texts                 []string
}

func newScript(work string) script {
	sc := script{
		readPath:    filepath.Join(work, "hello.txt"),
		fileContent: "hello from the workspace\n",
		command:     "wc -l hello.txt",
		stdout:      "1 hello.txt\n",
		thinking:    "The user wants the file read.",
		texts:       []string{"Reading hello.txt.", "It says hello."},
	}
	sc.first = fakemodel.Turn{
		Blocks: []fakemodel.Block{
			fakemodel.Thinking(sc.thinking),
			fakemodel.Text(sc.texts[0]),
			{Type: "tool_use", ID: "call_read_1", Name: "read", Input: map[string]any{"path": sc.readPath}, Output: sc.fileContent},
			{Type: "tool_use", ID: "call_shell_1", Name: "shell", Input: map[string]any{"command": sc.command}, Output: sc.stdout},
			fakemodel.Text(sc.texts[1]),
		},
		Usage: fakemodel.Usage{InputTokens: 1234, OutputTokens: 56, CacheReadInputTokens: 700, CacheCreationInputTokens: 30},
	}
	sc.second = fakemodel.Turn{
		Blocks: []fakemodel.Block{fakemodel.Text("Second answer.")},
		Usage:  fakemodel.Usage{InputTokens: 321, OutputTokens: 9},
	}
	// permission_denied is an error the SDK does not retry (it retries
	// most others, backing off for seconds); the fake still fails every
	// attempt, this turn being its fallback too.
	sc.failed = fakemodel.Turn{Status: 403, ErrorType: "permission_denied"}
	return sc
}

// runJob starts a fake backend serving turns, then failing every request
// past them, and runs job's prompts against it from home h.
func runJob(t *testing.T, tools Tools, h Home, sc script, turns []fakemodel.Turn, agents [][]string) (Result, *fakemodel.Server) {
	t.Helper()
	fake := fakemodel.New(turns...)
	fake.Fallback = sc.failed
	if _, err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, tools, h, Job{Backend: fake.URL(), Agents: agents})
	if err != nil {
		t.Fatal(err)
	}
	return res, fake
}

// sdkMessage is the part of a run_events payload the tests read.
type sdkMessage struct {
	Type    string `json:"type"`
	Message struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"message"`
		CallID string          `json:"call_id"`
		Name   string          `json:"name"`
		Status string          `json:"status"`
		Args   json.RawMessage `json:"args"`
		Result json.RawMessage `json:"result"`
	} `json:"message"`
}

// messagesOf reads the SDK messages recorded for run, in order.
func messagesOf(t *testing.T, db *sql.DB, run string) []sdkMessage {
	t.Helper()
	events, err := Rows(db, "run_events")
	if err != nil {
		t.Fatal(err)
	}
	var out []sdkMessage
	for _, e := range events {
		if e.String("run_id") != run {
			continue
		}
		var m sdkMessage
		if err := json.Unmarshal([]byte(e.String("payload_json")), &m); err != nil {
			t.Fatalf("run_events payload %q: %v", e.String("payload_json"), err)
		}
		out = append(out, m)
	}
	return out
}

func openStore(t *testing.T, h Home) *sql.DB {
	t.Helper()
	db, err := OpenStore(h.IndexDB())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustRows(t *testing.T, db *sql.DB, table string) []Row {
	t.Helper()
	rows, err := Rows(db, table)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestTurnsWriteTheStore(t *testing.T) {
	tools := Find(t)
	h := NewHome(t)
	sc := newScript(h.Work)
	prompts := []string{"read hello.txt", "and again"}
	res, fake := runJob(t, tools, h, sc, []fakemodel.Turn{sc.first, sc.second}, [][]string{prompts})

	var seen []string
	for _, r := range fake.Requests() {
		if r.Cursor.Prompt != "" {
			seen = append(seen, r.Cursor.Prompt)
		}
	}
	if strings.Join(seen, "|") != strings.Join(prompts, "|") {
		t.Errorf("prompts the fake backend got = %q, want %q", seen, prompts)
	}

	db := openStore(t, h)
	agents := mustRows(t, db, "agents")
	if len(agents) != 1 || agents[0].String("agent_id") != res.Agents[0].AgentID {
		t.Fatalf("agents = %d rows, want the one agent %s", len(agents), res.Agents[0].AgentID)
	}
	if got := agents[0].String("status"); got != "IDLE" {
		t.Errorf("agent status = %q, want IDLE", got)
	}
	if got := agents[0].String("workspace_ref"); got != h.Work {
		t.Errorf("agent workspace_ref = %q, want %q", got, h.Work)
	}
	// Beside index.db, each agent's blob store: agents/agent-<sha256 of its id>.
	sum := sha256.Sum256([]byte(res.Agents[0].AgentID))
	if _, err := os.Stat(filepath.Join(h.StateRoot, "agents", "agent-"+hex.EncodeToString(sum[:]), "store.db")); err != nil {
		t.Errorf("the agent's blob store: %v", err)
	}

	runs := mustRows(t, db, "runs")
	if len(runs) != 2 {
		t.Fatalf("runs = %d rows, want 2", len(runs))
	}
	for i, turn := range []fakemodel.Turn{sc.first, sc.second} {
		run := runs[i]
		if run.String("run_id") != res.Agents[0].Runs[i].RunID || run.String("turn_number") != []string{"1", "2"}[i] {
			t.Errorf("run %d = %s turn %s, want %s turn %d", i, run.String("run_id"), run.String("turn_number"), res.Agents[0].Runs[i].RunID, i+1)
		}
		if got := run.String("status"); got != "FINISHED" {
			t.Errorf("run %d status = %q, want FINISHED", i, got)
		}
		var usage map[string]int
		if err := json.Unmarshal([]byte(run.String("usage_json")), &usage); err != nil {
			t.Fatalf("run %d usage_json %q: %v", i, run.String("usage_json"), err)
		}
		u := turn.Usage
		want := map[string]int{
			"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens,
			"cacheReadTokens": u.CacheReadInputTokens, "cacheWriteTokens": u.CacheCreationInputTokens,
			"totalTokens": u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		}
		for k, v := range want {
			if usage[k] != v {
				t.Errorf("run %d usage_json[%s] = %d, want %d (%s)", i, k, usage[k], v, run.String("usage_json"))
			}
		}
	}

	// The first run's events: the thinking, the text and both tool calls
	// the script handed out.
	var thinking, text strings.Builder
	calls := map[string]sdkMessage{}
	for _, m := range messagesOf(t, db, res.Agents[0].Runs[0].RunID) {
		switch m.Message.Type {
		case "thinking":
			thinking.WriteString(m.Message.Text)
		case "assistant":
			for _, c := range m.Message.Message.Content {
				text.WriteString(c.Text)
			}
		case "tool_call":
			if m.Message.Status == "completed" {
				calls[m.Message.Name] = m
			}
		}
	}
	if got := thinking.String(); got != sc.thinking {
		t.Errorf("thinking = %q, want %q", got, sc.thinking)
	}
	if got, want := text.String(), strings.Join(sc.texts, ""); got != want {
		t.Errorf("assistant text = %q, want %q", got, want)
	}
	checkCall := func(name, callID, wantArgs, wantResult string) {
		t.Helper()
		c, ok := calls[name]
		if !ok {
			t.Errorf("no completed %s tool_call in run_events", name)
			return
		}
		if c.Message.CallID != callID || !strings.Contains(string(c.Message.Args), wantArgs) || !strings.Contains(string(c.Message.Result), wantResult) {
			t.Errorf("%s tool_call = %s %s %s, want %s with %s and %s", name, c.Message.CallID, c.Message.Args, c.Message.Result, callID, wantArgs, wantResult)
		}
	}
	checkCall("read", "call_read_1", mustJSON(t, sc.readPath), mustJSON(t, sc.fileContent))
	checkCall("shell", "call_shell_1", mustJSON(t, sc.command), mustJSON(t, sc.stdout))
}

func TestFailedRunEndsInError(t *testing.T) {
	tools := Find(t)
	h := NewHome(t)
	sc := newScript(h.Work)
	res, _ := runJob(t, tools, h, sc, nil, [][]string{{"fail please"}})

	runs := mustRows(t, openStore(t, h), "runs")
	if len(runs) != 1 || runs[0].String("run_id") != res.Agents[0].Runs[0].RunID {
		t.Fatalf("runs = %d rows, want the one run %s", len(runs), res.Agents[0].Runs[0].RunID)
	}
	if got := runs[0].String("status"); got != "ERROR" {
		t.Errorf("run status = %q, want ERROR", got)
	}
	if got := runs[0].String("error_code"); !strings.Contains(got, sc.failed.ErrorType) {
		t.Errorf("run error_code = %q, want it to name %q", got, sc.failed.ErrorType)
	}
}

// mustJSON is s as it appears inside JSON, without the quotes.
func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[1 : len(b)-1])
}
