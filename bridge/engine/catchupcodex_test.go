package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/agent/codex"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// The real Codex 0.169 rollout of bridge/codex's corpus (README.md there):
// two turns, the second from `codex exec resume`, appended to the same
// file. What it holds is its .events file beside it.
const (
	corpus169     = "../codex/testdata/corpus/0.169.0/rollout-2026-12-02T18-43-11-01a23811-5b54-7821-8aa7-6fec34fa80df.jsonl"
	corpus169Day  = "2026/12/02" // the sessions folder it was written in
	corpus169Cwd  = "/tmp/cxhome-0.169.0/work/demo"
	corpus169ID   = "01a23811-5b54-7821-8aa7-6fec34fa80df"
	corpus169Turn = 42 // the resumed turn's first line (thread_settings_applied)
)

// A Codex session that began, or was resumed, while the bridge was down
// streams after a restart from where it stood, as a Claude Code session
// does (TestSessionBornWhileDownIsPublished): a rollout born while down
// with both its turns, one resumed while down with its new turn only.
// Each turn is longer than the cold start's 4 KiB tail, so read as an old
// record's tail both lose their start (their prompt).
func TestCodexRolloutWhileDownIsPublished(t *testing.T) {
	type turn struct {
		prompt   string
		in, out  int64
		answered string
	}
	first := turn{"Give me a short tour: run a command, show me some failures, and create greeting.txt.", 800, 380, "All done: greeting.txt says hello world."}
	second := turn{"Thanks! What's in greeting.txt now?", 200, 40, "It says: hello world."}
	cases := []struct {
		name    string
		resumed bool // its first turn was there a day before, in the folder Codex first wrote it in
		want    []turn
		notWant []string
	}{
		{"born while down", false, []turn{first, second}, nil},
		{"resumed while down", true, []turn{second}, []string{first.prompt, first.answered}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			codexHome := filepath.Join(h.root, ".codex")
			dir, proj := h.workspace("demo")
			const a = "aaaaaaaa-6666-4666-8666-0000000000a1"
			cwdOf[a] = dir
			h.write(filepath.Join(proj, a+".jsonl"), now(prompt(a, "one")), now(answer(a, "m1", "a1", "end_turn")))
			lines := rolloutLines(t, dir)
			rollout := filepath.Join(codexHome, "sessions", time.Now().Format("2006/01/02"), filepath.Base(corpus169))
			if tc.resumed {
				rollout = filepath.Join(codexHome, "sessions", corpus169Day, filepath.Base(corpus169))
				os.MkdirAll(filepath.Dir(rollout), 0o755)
				h.write(rollout, lines[:corpus169Turn]...) // stamped as Codex stamped them, days ago
				day := time.Now().Add(-24 * time.Hour)
				os.Chtimes(rollout, day, day)
				lines = lines[corpus169Turn:]
			}
			tune := func(c *Config) {
				c.Scanner = &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}, codex.New(codexHome)},
					Processes: func() (map[string]int, error) { return nil, nil }}
				c.Agents = testAgents(h.projects, codexHome)
			}
			after := h.acrossRestart(t, dir, corpus169ID, len(tc.want), tune, func() {
				for i := range lines {
					lines[i] = now(lines[i]) // written while down
				}
				os.MkdirAll(filepath.Dir(rollout), 0o755)
				h.write(rollout, lines...)
			})
			got := summary(after)
			var ends []event.Event
			for _, e := range after {
				if e.Type == event.TurnComplete && e.SessionID == corpus169ID {
					ends = append(ends, e)
				}
			}
			if len(ends) != len(tc.want) {
				t.Fatalf("%d turns, want %d: %s", len(ends), len(tc.want), got)
			}
			for i, want := range tc.want {
				for _, s := range []string{"user:" + want.prompt, "assistant:" + want.answered} {
					if !strings.Contains(got, s) {
						t.Errorf("missing %q: %s", s, got)
					}
				}
				if u := ends[i].Usage; u.InputTokens != want.in || u.OutputTokens != want.out {
					t.Errorf("turn %d: %d in, %d out; want %d, %d", i+1, u.InputTokens, u.OutputTokens, want.in, want.out)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(got, s) {
					t.Errorf("history published again (%q): %s", s, got)
				}
			}
		})
	}
}

// rolloutLines is the corpus rollout's lines with its workspace moved to
// dir.
func rolloutLines(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(corpus169)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), corpus169Cwd, dir)
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}
