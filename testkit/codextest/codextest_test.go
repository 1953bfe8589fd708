package codextest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScenario runs the corpus scenario with each release and checks that
// the real binary did what the fake model asked: commands ran (their
// outputs reached the next request), the patch created the file, and the
// resumed prompt went into the same thread.
func TestScenario(t *testing.T) {
	for _, version := range []string{Latest, Legacy} {
		t.Run(version, func(t *testing.T) {
			bin := Find(t, version)
			home := t.TempDir()
			rollout := RunScenario(t, bin, version, home)
			data, err := os.ReadFile(filepath.Join(home, "work", "demo", "greeting.txt"))
			if err != nil || string(data) != "hello world\n" {
				t.Errorf("apply_patch did not create greeting.txt: %q %v", data, err)
			}
			raw, err := os.ReadFile(rollout)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{`"cli_version":"` + version + `"`, "No such file or directory", SecondPrompt, "It says: hello world."} {
				if !strings.Contains(string(raw), want) {
					t.Errorf("rollout lacks %q", want)
				}
			}
		})
	}
}

func TestArgv(t *testing.T) {
	t.Parallel()
	o := Options{Home: "/h", Dir: "/h/w", Prompt: "p", Args: []string{"--json"}}
	if got := strings.Join(o.Argv(), " "); got != "exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -C /h/w --json p" {
		t.Errorf("exec: %s", got)
	}
	o.Resume = "id"
	// 0.47 takes exec's options only before "resume".
	if got := strings.Join(o.Argv(), " "); got != "exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox --json resume id p" {
		t.Errorf("resume: %s", got)
	}
	env := o.Environ()
	if !slices.Contains(env, "CODEX_HOME=/h/.codex") || !slices.Contains(env, KeyEnv+"=test-key") {
		t.Errorf("env: %v", env)
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "OPENAI_API_KEY=") {
			t.Errorf("a real key leaks in: %s", kv)
		}
	}
}

func TestThreadID(t *testing.T) {
	t.Parallel()
	if got := ThreadID("/x/rollout-2026-12-02T18-43-11-01a23811-5b54-7821-8aa7-6fec34fa80df.jsonl"); got != "01a23811-5b54-7821-8aa7-6fec34fa80df" {
		t.Error(got)
	}
	if ThreadID("short.jsonl") != "" {
		t.Error("short name")
	}
}
