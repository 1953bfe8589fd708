package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/codextest"
	"conductorbridge/testkit/fakemodel"
)

// TestRealCodexRestartMatchesAnUninterruptedRun is
// TestRealClaudeRestartMatchesAnUninterruptedRun for real Codex 0.169: a
// first `codex exec` with the bridge up, then a new thread born while the
// bridge is down, then the first thread resumed (`codex exec resume`)
// while it is down again. The interrupted run must stream what the
// uninterrupted one did, with the same tokens, cost and usage. The answers
// while down are longer than the 4 KiB a cold start reads of a rollout it
// takes for history.
func TestRealCodexRestartMatchesAnUninterruptedRun(t *testing.T) {
	bin := codextest.Find(t, codextest.Latest)
	long := strings.Repeat(" And so on.", 1000)
	script := func(t *testing.T, e *agentEnv) []downStep {
		turns := append(codextest.FirstTurn(),
			fakemodel.Turn{Blocks: []fakemodel.Block{fakemodel.Text("Born while down." + long)}, Usage: fakemodel.Usage{InputTokens: 222, OutputTokens: 22}})
		turns = append(turns, codextest.SecondTurn()...)
		turns[len(turns)-1].Blocks = []fakemodel.Block{fakemodel.Text("Resumed while down." + long)}
		turns[len(turns)-1].Usage = fakemodel.Usage{InputTokens: 333, CacheReadInputTokens: 700, OutputTokens: 34, ReasoningTokens: 10}
		oai := fakemodel.NewTest(t, turns...)
		co := codextest.Options{Bin: bin, BaseURL: oai.URL(), Home: e.home, Dir: e.dir}
		if err := codextest.PrepareHome(co.CodexHome(), e.dir, oai.URL(), codextest.ModelFor(codextest.Latest)); err != nil {
			t.Fatal(err)
		}
		var first string
		run := func(prompt string, resume *string) func(t *testing.T) string {
			return func(t *testing.T) string {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				o := co
				o.Prompt = prompt
				if resume != nil {
					o.Resume = *resume
				}
				before := codextest.Rollouts(t, co.CodexHome())
				if res, err := codextest.Run(ctx, o); err != nil {
					t.Fatalf("%v\n%s", err, res.Stderr)
				}
				if resume != nil {
					return *resume
				}
				for _, r := range codextest.Rollouts(t, co.CodexHome()) {
					if !slices.Contains(before, r) {
						if first == "" {
							first = codextest.ThreadID(r)
						}
						return codextest.ThreadID(r)
					}
				}
				t.Fatalf("codex exec %q wrote no rollout", prompt)
				return ""
			}
		}
		return []downStep{
			{name: "first", run: run(codextest.FirstPrompt, nil)},
			{name: "born while down", down: true, run: run("born while down", nil)},
			{name: "resumed while down", down: true, run: run("resumed while down", &first)},
		}
	}
	var runs [2]downRun
	for i, interrupted := range []bool{false, true} {
		e := newBareEnv(t)
		runs[i] = runDownScript(t, e, script(t, e), interrupted)
	}
	compareDownRuns(t, runs[0], runs[1])
}
