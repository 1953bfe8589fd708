package discover

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/conductorrows"
)

// TestConfirmSessionByItsTranscript: a Claude tab's id is claude_session_id,
// else sessions.id, whichever has its transcript on disk as a regular
// file; with neither, the first id that is set, and no transcript. The
// row is placed and confirmed as a read of the database does it, with
// Claude Code's driver.
func TestConfirmSessionByItsTranscript(t *testing.T) {
	projects := t.TempDir()
	dir := "/work/tokyo"
	proj := filepath.Join(projects, "-work-tokyo")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	const claudeID, rowID, fifoID = "aaaaaaaa-1111-4111-8111-00000000000a", "bbbbbbbb-2222-4222-8222-00000000000b", "cccccccc-3333-4333-8333-00000000000c"
	file := func(id string) string { return filepath.Join(proj, id+".jsonl") }
	if err := syscall.Mkfifo(file(fifoID), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(id string) {
		if err := os.WriteFile(file(id), []byte("{}\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		agent      string
		files      []string // transcripts on disk
		candidates []string
		wantID     string
		wantFile   bool
	}{
		{"claude_session_id's file", "claude", []string{claudeID, rowID}, []string{claudeID, rowID}, claudeID, true},
		{"sessions.id's file when claude_session_id has none", "claude", []string{rowID}, []string{claudeID, rowID}, rowID, true},
		{"no file yet: the first id", "claude", nil, []string{claudeID, rowID}, claudeID, false},
		{"no claude_session_id", "claude", []string{rowID}, []string{"", rowID}, rowID, true},
		{"a FIFO is not a transcript", "claude", []string{rowID}, []string{fifoID, rowID}, rowID, true},
		{"not a path element", "claude", []string{rowID}, []string{"../" + claudeID, rowID}, rowID, true},
		{"Codex: the thread id, no Claude transcript", "codex", []string{claudeID}, []string{claudeID, rowID}, claudeID, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, id := range []string{claudeID, rowID} {
				os.Remove(file(id))
			}
			for _, id := range tt.files {
				write(id)
			}
			ws := []Workspace{{ID: "w1", Directory: dir}}
			agents := []Agent{claude.Agent{Projects: projects}}
			placeSessions([]conductorrows.Session{{ID: tt.candidates[1], WorkspaceID: "w1", AgentSessionID: tt.candidates[0], AgentType: tt.agent}}, ws, agents)
			fillTabs(agents, ws)
			id, tr := ws[0].Sessions[0].ID, ws[0].Sessions[0].Transcript
			if id != tt.wantID || (tr != "") != tt.wantFile || (tr != "" && tr != file(id)) {
				t.Errorf("got %q %q, want %q (transcript %v)", id, tr, tt.wantID, tt.wantFile)
			}
		})
	}
}
