package conductor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/testkit/claudetest"
	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// TestRecordCorpus writes testdata/corpus from real agent runs against
// the fake model servers, as Conductor would keep them in
// session_messages: each typed prompt a row of text, each frame the agent
// printed a row of JSON (Claude Code's stream-json as it is, Codex's exec
// events as content.rawPayload), one row per line of Row.Line. It runs
// only with CONDUCTOR_CORPUS_RECORD=1; the files it writes are reviewed
// and committed.
func TestRecordCorpus(t *testing.T) {
	if os.Getenv("CONDUCTOR_CORPUS_RECORD") != "1" {
		t.Skip("records the corpus only with CONDUCTOR_CORPUS_RECORD=1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	bin := claudetest.Find(t, "")
	version, err := claudetest.Agent().Version(bin)
	if err != nil {
		t.Fatal(err)
	}
	fm := fakemodel.NewTest(t,
		fakemodel.Reply(fakemodel.Text("Counting first."), fakemodel.Bash("seq 1 400")),
		fakemodel.Reply(fakemodel.Text("Counted to 400.")),
		fakemodel.Reply(fakemodel.Thinking("The person wants a summary."), fakemodel.Text("It printed the numbers 1 to 400, one a line.")))
	s, err := claudetest.Start(ctx, claudetest.Options{Bin: bin, BaseURL: fm.URL(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var claude []any
	seen := 0
	for _, prompt := range []string{"count to 400 in the shell", "what did it print?"} {
		claude = append(claude, prompt)
		if err := s.Send(prompt); err != nil {
			t.Fatal(err)
		}
		if _, err := s.WaitResult(ctx); err != nil {
			t.Fatalf("%v\n%s", err, s.Stderr())
		}
		for _, f := range s.Events()[seen:] {
			claude = append(claude, json.RawMessage(f.Raw))
		}
		seen = len(s.Events())
	}
	writeCorpus(t, "claude-"+version, claude)

	cbin := codextest.Find(t, codextest.Latest)
	srv := fakemodel.NewTest(t, fakemodel.Build(func(r fakemodel.Request) []fakemodel.Block {
		return []fakemodel.Block{fakemodel.Thinking("Counting in the shell."), fakemodel.Shell(r.ToolNames(), "seq 1 300")}
	}), fakemodel.Reply(fakemodel.Text("Counted to 300.")))
	res, err := codextest.Run(ctx, codextest.Options{Bin: cbin, BaseURL: srv.URL(), Home: t.TempDir(), Prompt: "count to 300", Args: []string{"--json"}})
	if err != nil {
		t.Fatal(err)
	}
	codex := []any{"count to 300"}
	for _, line := range bytes.Split(bytes.TrimSpace(res.Stdout), []byte("\n")) {
		if json.Valid(line) {
			codex = append(codex, map[string]any{"type": "assistant", "content": map[string]any{"rawPayload": json.RawMessage(line)}})
		}
	}
	writeCorpus(t, "codex-"+codextest.Latest, codex)
}

// writeCorpus writes items as rows' lines: a string is a typed prompt, a
// frame is JSON; times a second apart from a fixed start, in the two
// formats Conductor mixes.
func writeCorpus(t *testing.T, name string, items []any) {
	t.Helper()
	at := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	var b []byte
	for i, it := range items {
		r := Row{RowID: int64(i + 1), ID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1), Session: "s-tab", Role: "user"}
		r.CreatedAt = at.Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
		if i%2 == 1 {
			r.CreatedAt = at.Add(time.Duration(i) * time.Second).Format("2006-01-02 15:04:05")
		}
		switch v := it.(type) {
		case string:
			r.Content = v
		default:
			data, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			r.Role, r.Content = "assistant", string(data)
		}
		b = append(r.AppendLine(b), '\n')
	}
	dir := filepath.Join("testdata", "corpus", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rows.jsonl"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}
