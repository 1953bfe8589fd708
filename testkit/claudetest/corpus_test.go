package claudetest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/fakemodel"
)

// corpusVersions are the Claude Code releases the transcript corpus covers:
// the current one and the last 1.0 and 2.0 releases on npm.
func corpusVersions() []string { return []string{Latest, "2.0.77", "1.0.128"} }

// TestGenerateCorpus regenerates bridge/transcript/testdata/corpus by
// running each real Claude Code version against the scripted fake model.
// It only runs when asked to, because it rewrites checked-in files:
//
//	CLAUDETEST_CORPUS_DIR=$PWD/bridge/transcript/testdata/corpus go test ./testkit/claudetest -run GenerateCorpus -v
func TestGenerateCorpus(t *testing.T) {
	out := os.Getenv("CLAUDETEST_CORPUS_DIR")
	if out == "" {
		t.Skip("set CLAUDETEST_CORPUS_DIR to regenerate the transcript corpus")
	}
	for _, v := range corpusVersions() {
		t.Run(v, func(t *testing.T) { generateCorpus(t, v, filepath.Join(out, v)) })
	}
}

// corpusScript is the scripted session: thinking + text + Bash, Write then
// Edit, two failing tools, a long output, a subagent, then a second turn.
func corpusScript(version, dir string) []fakemodel.Turn {
	file := filepath.Join(dir, "greeting.txt")
	agent := map[string]any{
		"description":   "Survey the workspace",
		"prompt":        "List the files in the workspace and report back.",
		"subagent_type": "general-purpose",
	}
	agentTool := "Task"
	if strings.HasPrefix(version, "2.") {
		// 2.1 renamed Task to Agent and runs agents in the background by
		// default, which would race the subagent's turns with ours.
		agent["run_in_background"] = false
		if version != "2.0.77" {
			agentTool = "Agent"
		}
	}
	turns := []fakemodel.Turn{
		fakemodel.Reply(
			fakemodel.Thinking("The user wants a short tour. I will start with a harmless command."),
			fakemodel.Text("Let me start with a quick command."),
			fakemodel.Bash("echo hello"),
		),
		fakemodel.Reply(fakemodel.ToolUse("Write", map[string]any{"file_path": file, "content": "hello world\n"})),
		fakemodel.Reply(fakemodel.ToolUse("Edit", map[string]any{"file_path": file, "old_string": "world", "new_string": "there"})),
		fakemodel.Reply(fakemodel.Text("Now a command that fails."), fakemodel.Bash("exit 3")),
		fakemodel.Reply(fakemodel.ToolUse("Read", map[string]any{"file_path": filepath.Join(dir, "missing.txt")})),
		fakemodel.Reply(fakemodel.Bash("seq 1 400")),
		fakemodel.Reply(fakemodel.Text("I'll ask a subagent to survey the workspace."), fakemodel.ToolUse(agentTool, agent)),
		// The subagent's own two requests.
		fakemodel.Reply(fakemodel.Bash("ls")),
		fakemodel.Reply(fakemodel.Text("The workspace holds greeting.txt.")),
		{
			Blocks: []fakemodel.Block{fakemodel.Text("All done: echoed, wrote and edited greeting.txt, saw two failures, counted to 400.")},
			Usage:  fakemodel.Usage{InputTokens: 1200, CacheCreationInputTokens: 300, CacheReadInputTokens: 4000, OutputTokens: 42},
		},
		// Second user turn.
		fakemodel.Reply(fakemodel.Thinking("They want the file contents; read it."), fakemodel.ToolUse("Read", map[string]any{"file_path": file})),
		fakemodel.Reply(fakemodel.Text("greeting.txt says \"hello there\".")),
	}
	// Real-model pacing matters: 1.x and 2.0 write each block's line while
	// the response still streams, so what a line says about stop_reason
	// and usage depends on timing. An instant stream would hide that.
	for i := range turns {
		turns[i].Delay = 150 * time.Millisecond
		turns[i].ChunkDelay = 20 * time.Millisecond
	}
	return turns
}

func generateCorpus(t *testing.T, version, out string) {
	bin := Find(t, version)
	home := "/tmp/cbhome-" + version
	dir := filepath.Join(home, "work", "demo")
	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	// A Stop hook, so the corpus shows how hook runs are recorded.
	hook := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	fm := fakemodel.NewTest(t, corpusScript(version, dir)...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{
		Bin: bin, BaseURL: fm.URL(), Home: home, Dir: dir,
		AllowedTools: append(DefaultTools(), "Agent", "Task"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	converse(t, ctx, s, fm,
		"Give me a short tour: run a command, create greeting.txt, and show me some failures.",
		"Thanks! What's in greeting.txt now?")
	for _, r := range fm.Requests() {
		t.Logf("request %d %s %s kind=%s model=%s tools=%d last=%.60q", r.Seq, r.Method, r.Path, r.Kind, r.Anthropic.Model, len(r.Anthropic.Tools), r.LastUserText())
		logToolResults(t, r)
	}
	path, err := s.TranscriptPath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Dir(path), out); err != nil {
		t.Fatal(err)
	}
	t.Logf("copied %s to %s", filepath.Dir(path), out)
}

// logToolResults shows what each tool returned, to check the script did
// what it meant to (the Edit succeeded, exit 3 is an error, …).
func logToolResults(t *testing.T, r fakemodel.Request) {
	if len(r.Anthropic.Messages) == 0 {
		return
	}
	last := r.Anthropic.Messages[len(r.Anthropic.Messages)-1]
	for _, c := range last.Content {
		if c.Type == "tool_result" {
			t.Logf("    tool_result %s is_error=%v %.80q", c.ToolUseID, c.IsError, c.ResultText())
		}
	}
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// converse sends each prompt after the last one's result, then ends the
// session and checks the script was used up.
func converse(t *testing.T, ctx context.Context, s *Session, fm *fakemodel.Server, prompts ...string) {
	t.Helper()
	for _, prompt := range prompts {
		if err := s.Send(prompt); err != nil {
			t.Fatal(err)
		}
		res, err := s.WaitResult(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("result: %+v", res)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("claude exit: %v; stderr %s", err, s.Stderr())
	}
	if n := fm.Remaining(); n != 0 {
		t.Errorf("%d scripted turns left over", n)
	}
}
