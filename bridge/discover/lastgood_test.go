package discover

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
)

// A source whose scan fails keeps its last good picture until a scan of it
// succeeds (issue 12, risk 3): its workspaces do not vanish for a scan.
func TestFailedScanKeepsLastGoodPicture(t *testing.T) {
	tests := []struct {
		name   string
		broken func(h *fakeHome) string   // the folder whose listing fails
		only   func(h *fakeHome) *Scanner // a scanner of that source alone
	}{
		{"claude projects", func(h *fakeHome) string { return h.projects },
			func(h *fakeHome) *Scanner { return &Scanner{Agents: []Agent{h.claude()}} }},
		{"conductor folders", func(h *fakeHome) string { return filepath.Join(h.conductor, "workspaces") },
			func(h *fakeHome) *Scanner { return &Scanner{ConductorRoot: h.conductor} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHome(t)
			dir := h.worktree("webapp", "tokyo", "main")
			h.transcript(claude.EncodeProjectDir(dir), "s1.jsonl", time.Now(), record("user", dir))
			s := tt.only(h)
			s.Processes = func() (map[string]int, error) { return nil, nil }
			dirs := func() []string {
				ws, err := s.Scan(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				for _, w := range ws {
					out = append(out, w.Directory)
				}
				return out
			}
			if got := dirs(); !slices.Contains(got, dir) {
				t.Fatalf("first scan: %v, want %s", got, dir)
			}
			// Listing the folder fails (ENOTDIR, as "too many open files"
			// would): a file stands where the folder was.
			folder := tt.broken(h)
			if err := os.Rename(folder, folder+".away"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, folder, "not a folder")
			if got := dirs(); !slices.Contains(got, dir) {
				t.Errorf("scan while %s fails: %v, want %s kept", folder, got, dir)
			}
			// A good scan replaces the picture: the folder is empty now.
			if err := os.Remove(folder); err != nil {
				t.Fatal(err)
			}
			mkdir(t, folder)
			if got := dirs(); slices.Contains(got, dir) {
				t.Errorf("scan after recovery: %v still lists %s", got, dir)
			}
		})
	}
}
