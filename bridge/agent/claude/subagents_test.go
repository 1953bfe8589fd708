package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBesideSession: a 2.0 agent-*.jsonl beside every session's
// transcript is the session's its first line names; until that line is
// whole, whose it is waits; a file that can say none is no session's.
func TestBesideSession(t *testing.T) {
	dir := t.TempDir()
	const sid = "8ea2c1d2-6c13-41e7-8a87-123726d6bb7c"
	tests := []struct {
		name, content string
		session       string
		decided       bool
	}{
		{"first line names it", `{"parentUuid":null,"sessionId":"` + sid + `","type":"user"}` + "\n" + `{"sessionId":"other"}` + "\n", sid, true},
		{"first line still being written", `{"parentUuid":null,"sessionId":"` + sid, "", false},
		{"empty, just made", "", "", false},
		{"first line names none", `{"type":"user"}` + "\n", "", true},
		{"not JSON", "agent notes\n", "", true},
		{"no line break in its first 256 KB", strings.Repeat("x", 300<<10), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, "agent-"+strings.ReplaceAll(tt.name, " ", "-")+".jsonl")
			if err := os.WriteFile(p, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, decided := (Agent{}).BesideSession(p); got != tt.session || decided != tt.decided {
				t.Errorf("BesideSession = %q, %v; want %q, %v", got, decided, tt.session, tt.decided)
			}
		})
	}
	if got, decided := (Agent{}).BesideSession(filepath.Join(dir, "agent-gone.jsonl")); got != "" || !decided {
		t.Errorf("a file that is gone: %q, %v; want no session, decided", got, decided)
	}
}

// TestSubagentFilesArePlacedAsClaudeCodeWritesThem: 2.1's in the
// session's own folder, 2.0's beside every transcript of the project.
func TestSubagentFilesArePlacedAsClaudeCodeWritesThem(t *testing.T) {
	rec := "/p/-tmp-work/8ea2c1d2.jsonl"
	tests := []struct{ file, glob string }{
		{"/p/-tmp-work/8ea2c1d2/subagents/agent-aaa4.jsonl", Agent{}.SubagentGlob(rec)},
		{"/p/-tmp-work/agent-af4a400.jsonl", Agent{}.BesideGlob(rec)},
	}
	for _, tt := range tests {
		if ok, _ := filepath.Match(tt.glob, tt.file); !ok {
			t.Errorf("%s does not match %s", tt.file, tt.glob)
		}
	}
	for _, other := range []string{"/p/-tmp-work/8ea2c1d2/subagents/agent-aaa4.meta.json", "/p/-tmp-work/other/subagents/agent-b.jsonl"} {
		if ok, _ := filepath.Match(Agent{}.SubagentGlob(rec), other); ok {
			t.Errorf("%s taken for a subagent's file of %s", other, rec)
		}
	}
}

// TestBesideSessionOfAResumedRunsWarmups reads the agent files real Claude
// Code 2.0.77 wrote for a `-p` run and a `-p --resume` of it (bridge/usage's
// testdata/resume2077). The resumed run's warm-ups name on their first
// line the empty record of the id it started under, and on their answer
// the session it resumed: every file is the resumed session's. Until the
// answer is written such a file waits; a warm-up whose first line names a
// session with a record of its own is that session's at once.
func TestBesideSessionOfAResumedRunsWarmups(t *testing.T) {
	const resumed, empty = "11111111-2222-4333-8444-555555555555", "4c7edd0f-8169-40a3-9356-872f34e325a8"
	// the files whose first line names the empty record
	dir, warmups := copyRecorded(t, "resume2077", func(b []byte) bool {
		first, _, _ := strings.Cut(string(b), "\n")
		return strings.Contains(first, empty)
	})
	agents, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	for _, p := range agents {
		if got, decided := (Agent{}).BesideSession(p); got != resumed || !decided {
			t.Errorf("%s: %q, %v; want %s, decided", filepath.Base(p), got, decided, resumed)
		}
	}
	// The prompt alone: whose it is waits for the answer.
	b, _ := os.ReadFile(warmups[0])
	first, _, _ := strings.Cut(string(b), "\n")
	if err := os.WriteFile(warmups[0], []byte(first+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, decided := (Agent{}).BesideSession(warmups[0]); decided {
		t.Errorf("a warm-up of the empty record with no answer yet: %q, decided", got)
	}
	// Were that record not empty, it would be that session's.
	if err := os.WriteFile(filepath.Join(dir, empty+".jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, decided := (Agent{}).BesideSession(warmups[0]); got != empty || !decided {
		t.Errorf("a warm-up of a session with a record: %q, %v; want %s, decided", got, decided, empty)
	}
}

// TestBesideSessionOfAWarmupAnsweredUnderTheEmptyID: in resume2077hooked
// (recorded from real 2.0.77 with a SessionStart hook that takes half a
// second) the resumed run took the resumed id late, so its three warm-ups'
// answers too name the empty record it started under. Each belongs to the
// session whose prompt came next in the folder, the resumed one, as
// ccusage counts them. Before that prompt is written, whose it is waits,
// up to resumeWindow; with no prompt by then it is the empty session's.
func TestBesideSessionOfAWarmupAnsweredUnderTheEmptyID(t *testing.T) {
	const resumed, empty = "11111111-2222-4333-8444-555555555555", "ff13d7b0-4b7e-48b9-b951-91e3ce5bcda2"
	// answered under the empty record's id
	dir, warmups := copyRecorded(t, "resume2077hooked", func(b []byte) bool { return strings.Count(string(b), empty) == 2 })
	agents, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	for _, p := range agents {
		if got, decided := (Agent{}).BesideSession(p); got != resumed || !decided {
			t.Errorf("%s: %q, %v; want %s, decided", filepath.Base(p), got, decided, resumed)
		}
	}
	// The resumed session's record as it stood before its prompt: whose
	// the warm-ups are waits while they are young, and is the empty
	// session's once resumeWindow has passed with no prompt.
	record := filepath.Join(dir, resumed+".jsonl")
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(record, []byte(strings.Join(lines[:3], "")), 0o644); err != nil { // the first turn only
		t.Fatal(err)
	}
	asked := time.Date(2026, 12, 7, 1, 2, 7, 843e6, time.UTC) // the first warm-up's prompt
	for _, tt := range []struct {
		now         time.Time
		want        string
		wantDecided bool
	}{
		{asked.Add(time.Second), "", false},
		{asked.Add(resumeWindow + time.Second), empty, true},
	} {
		for _, p := range warmups {
			if got, decided := besideOwnerAt(p, tt.now); got != tt.want || decided != tt.wantDecided {
				t.Errorf("%s at %s after the warm-up, with no prompt since: %q, %v; want %q, %v", filepath.Base(p), tt.now.Sub(asked), got, decided, tt.want, tt.wantDecided)
			}
		}
	}
}

// copyRecorded copies the eight files of a recorded 2.0.77 resume
// (bridge/usage's testdata/name) into a folder of the test's, and returns
// it with the paths of the three warm-ups (agent-*.jsonl) that warmup
// picks by their bytes.
func copyRecorded(t *testing.T, name string, warmup func([]byte) bool) (dir string, warmups []string) {
	t.Helper()
	dir = t.TempDir()
	files, err := filepath.Glob(filepath.Join("..", "..", "usage", "testdata", name, "*.jsonl"))
	if err != nil || len(files) != 8 {
		t.Fatalf("testdata %s: %d files, %v", name, len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.Base(f))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(filepath.Base(f), "agent-") && warmup(b) {
			warmups = append(warmups, p)
		}
	}
	if len(warmups) != 3 {
		t.Fatalf("testdata %s: %d warm-ups of the resumed run, want 3", name, len(warmups))
	}
	return dir, warmups
}
