package discover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	codexagent "conductorbridge/bridge/agent/codex"
)

// rollout writes a Codex rollout file for thread, run in cwd, last
// written at mod, in the day folder Codex would use.
func rollout(t *testing.T, codexHome, thread, cwd string, mod time.Time) string {
	t.Helper()
	day := filepath.Join(codexHome, "sessions", mod.Format("2006"), mod.Format("01"), mod.Format("02"))
	path := filepath.Join(day, "rollout-"+mod.Format("2006-01-02T15-04-05")+"-"+thread+".jsonl")
	meta := fmt.Sprintf(`{"timestamp":"2026-12-03T10:00:00.000Z","type":"session_meta","payload":{"id":%q,"cwd":%q,"cli_version":"0.169.0","originator":"codex_exec"}}`+"\n", thread, cwd)
	writeFile(t, path, meta)
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestScanFindsCodexSessions: a Conductor Codex tab is found by its thread
// id however old its rollout, and a plain Codex run in the same worktree
// joins that workspace as one more session, not a second workspace; a
// run elsewhere is a workspace of its own; old runs, runs whose folder is
// gone and runs with no cwd are not sessions.
func TestScanFindsCodexSessions(t *testing.T) {
	h := newFakeHome(t)
	codexHome := filepath.Join(h.root, ".codex")
	tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
	elsewhere := mkdir(t, filepath.Join(h.root, "src", "tool"))
	now := time.Now()
	const tab, plain, other, old, gone, nocwd = "019a0000-0000-7000-8000-00000000000a", "019a0000-0000-7000-8000-00000000000b",
		"019a0000-0000-7000-8000-00000000000c", "019a0000-0000-7000-8000-00000000000d", "019a0000-0000-7000-8000-00000000000e",
		"019a0000-0000-7000-8000-00000000000f"
	tabFile := rollout(t, codexHome, tab, tokyo, now.Add(-48*time.Hour))
	plainFile := rollout(t, codexHome, plain, tokyo, now)
	otherFile := rollout(t, codexHome, other, elsewhere, now)
	rollout(t, codexHome, old, elsewhere, now.Add(-time.Hour))
	rollout(t, codexHome, gone, filepath.Join(h.root, "deleted"), now)
	rollout(t, codexHome, nocwd, "", now)
	createDB(t, h.db, conductordb.Schema(t), `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'webapp', '/nowhere');
INSERT INTO workspaces (id, repository_id, directory_name, state) VALUES ('w-tokyo', 'r1', 'tokyo', 'ready');
INSERT INTO sessions (id, workspace_id, status, agent_type, claude_session_id, is_hidden) VALUES
 ('s-codex', 'w-tokyo', 'idle', 'codex', '`+tab+`', 0);`)

	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Agents: []Agent{h.claude(), codexagent.New(codexHome)},
		RunWindow: 10 * time.Minute, Processes: noProcs}
	for scan := range 3 { // the second from the caches; before the third the tab writes again
		if scan == 2 {
			// Now the tab's rollout is also a recent run in tokyo: still one session.
			if err := os.Chtimes(tabFile, now, now); err != nil {
				t.Fatal(err)
			}
		}
		ws, err := s.Scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		byDir := map[string]Workspace{}
		for _, w := range ws {
			byDir[w.Directory] = w
		}
		if len(ws) != 2 {
			t.Fatalf("scan %d: %d workspaces, want tokyo and the other run's folder: %+v", scan, len(ws), ws)
		}
		tw := byDir[tokyo]
		if tw.ID != "w-tokyo" || len(tw.Sessions) != 2 {
			t.Fatalf("scan %d: tokyo %+v", scan, tw)
		}
		got := map[string]Session{}
		for _, ss := range tw.Sessions {
			got[ss.ID] = ss
		}
		if g := got[tab]; g.Agent != "codex" || g.ConductorID != "s-codex" || g.Transcript != tabFile {
			t.Errorf("scan %d: the Conductor tab: %+v", scan, g)
		}
		if g := got[plain]; g.Agent != "codex" || g.Transcript != plainFile || g.ConductorID != "" {
			t.Errorf("scan %d: the plain run in tokyo: %+v", scan, g)
		}
		ow := byDir[elsewhere]
		if ow.Source != "codex" || ow.Name != "tool" || len(ow.Sessions) != 1 || ow.Sessions[0].Transcript != otherFile {
			t.Errorf("scan %d: the run elsewhere: %+v", scan, ow)
		}
	}
}
