package claudetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/testkit/fakemodel"
)

// RealModelNames are names real transcripts carry (public dotfiles, the
// cost issue): dotted and dashed spellings, a -1m suffix, a date, models
// newer than most tables, a third-party model behind an
// Anthropic-compatible endpoint. Each answers one prompt of the models
// corpus, with the same usage, so its dollars can be worked out by hand.
var RealModelNames = []string{
	"claude-opus-4.6", "claude-opus-4-6", "claude-haiku-4.5", "claude-sonnet-4-5-1m",
	"claude-sonnet-4-5-20250929", "claude-opus-4-8", "claude-opus-5", "claude-sonnet-5",
	"deepseek-v4-pro", "deepseek-reasoner",
}

// ModelsUsage is what each response of the models corpus used.
var ModelsUsage = fakemodel.Usage{InputTokens: 1000, CacheCreationInputTokens: 2000, CacheReadInputTokens: 10000, OutputTokens: 500}

// TestGenerateModelsCorpus writes bridge/transcript/testdata/corpus/models/:
// one session of the real current Claude Code whose turns are answered
// under each of RealModelNames ("<synthetic>", which Claude Code writes
// itself, is priced in transcript's TestTurnCostByHand). Like
// TestGenerateCorpus it runs only when asked to:
//
//	CLAUDETEST_CORPUS_DIR=$PWD/bridge/transcript/testdata/corpus go test ./testkit/claudetest -run GenerateModelsCorpus -v
func TestGenerateModelsCorpus(t *testing.T) {
	out := os.Getenv("CLAUDETEST_CORPUS_DIR")
	if out == "" {
		t.Skip("set CLAUDETEST_CORPUS_DIR to regenerate the transcript corpus")
	}
	bin := Find(t, Latest)
	home := "/tmp/cbhome-models"
	dir := filepath.Join(home, "work", "demo")
	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var turns []fakemodel.Turn
	for _, m := range RealModelNames {
		turns = append(turns, fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Answered by " + m + ".")}, Usage: ModelsUsage, Model: m,
			Delay: 50 * time.Millisecond, ChunkDelay: 10 * time.Millisecond})
	}
	fm := fakemodel.NewTest(t, turns...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Bin: bin, BaseURL: fm.URL(), Home: home, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var prompts []string
	for _, m := range RealModelNames {
		prompts = append(prompts, "Which model answers this? ("+m+")")
	}
	converse(t, ctx, s, fm, prompts...)
	path, err := s.TranscriptPath()
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(out, "models")
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(filepath.Dir(path), dst); err != nil {
		t.Fatal(err)
	}
	t.Logf("copied %s to %s", filepath.Dir(path), dst)
}
