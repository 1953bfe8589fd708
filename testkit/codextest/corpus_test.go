package codextest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/testkit/fakemodel"
)

// TestGenerateCorpus writes the Codex corpus (bridge/codex/testdata/corpus)
// from real runs of each release against the fake. It only runs when
// CODEXTEST_CORPUS_DIR names the corpus dir, since its output is reviewed
// and committed by hand.
func TestGenerateCorpus(t *testing.T) {
	out := os.Getenv("CODEXTEST_CORPUS_DIR")
	if out == "" {
		t.Skip("set CODEXTEST_CORPUS_DIR to regenerate the corpus")
	}
	for _, version := range []string{Latest, Legacy} {
		t.Run(version, func(t *testing.T) {
			bin := Find(t, version)
			home := "/tmp/cxhome-" + version
			if err := os.RemoveAll(home); err != nil {
				t.Fatal(err)
			}
			rollout := RunScenario(t, bin, version, home)
			dst := filepath.Join(out, version, filepath.Base(rollout))
			_ = os.RemoveAll(filepath.Join(out, version))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(rollout)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d bytes)", dst, len(data))
		})
	}
}

// RunScenario runs the corpus scenario (two prompts, the second by resume)
// with bin in home and returns the rollout file's path.
func RunScenario(t *testing.T, bin, version, home string) string {
	t.Helper()
	srv := fakemodel.NewTest(t, FirstTurn()...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := Options{Bin: bin, BaseURL: srv.URL(), Home: home, Prompt: FirstPrompt, Model: ModelFor(version)}
	if _, err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	files := Rollouts(t, o.CodexHome())
	if len(files) != 1 {
		t.Fatalf("want one rollout file, got %v", files)
	}
	id := ThreadID(files[0])
	srv.Push(SecondTurn()...)
	o.Prompt, o.Resume = SecondPrompt, id
	if _, err := Run(ctx, o); err != nil {
		t.Fatal(err)
	}
	if got := Rollouts(t, o.CodexHome()); len(got) != 1 {
		t.Fatalf("resume wrote another file: %v", got)
	}
	return files[0]
}
