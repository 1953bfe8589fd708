package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
