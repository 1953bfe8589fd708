package discover

import (
	"conductorbridge/benchkit/conductordb"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
)

// TestScanSkipsAnUnchangedDatabase: the Scanner keeps one read-only
// connection to Conductor's database (a real file made from schema.sql)
// and reads its tables only when PRAGMA data_version says another
// connection committed. What lies on disk is looked at every scan, so a
// worktree or a tab's transcript that appears with no database write is
// still found; a replaced database file is read afresh.
func TestScanSkipsAnUnchangedDatabase(t *testing.T) {
	h := newFakeHome(t)
	tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
	createDB(t, h.db, conductordb.Schema(t), `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'webapp', '/nowhere/webapp');
INSERT INTO workspaces (id, repository_id, directory_name, branch, state, active_session_id) VALUES
 ('w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', 's-1'),
 ('w-osaka', 'r1', 'osaka', 'me/osaka', 'ready', NULL);
INSERT INTO sessions (id, workspace_id, status, claude_session_id, is_hidden) VALUES ('s-1', 'w-tokyo', 'idle', 'c-1', 0);`)
	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Agents: []Agent{h.claude()}, Processes: noProcs}
	defer s.Close()
	scan := func() map[string]Workspace {
		t.Helper()
		ws, err := s.Scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Workspace{}
		for _, w := range ws {
			out[w.ID] = w
		}
		return out
	}
	reads := func(want int, when string) {
		t.Helper()
		if got := s.DatabaseReads(); got != want {
			t.Errorf("%s: the tables were read %d times, want %d", when, got, want)
		}
	}

	if ws := scan(); len(ws) != 1 || ws["w-tokyo"].Directory != tokyo {
		t.Fatalf("first scan: %+v", ws)
	}
	reads(1, "first scan")
	for range 3 {
		scan()
	}
	reads(1, "three scans of an unchanged database")

	// No database write: the osaka worktree and the tab's transcript
	// appear on disk. The rows kept from the last read are placed anew.
	h.worktree("webapp", "osaka", "me/osaka")
	h.transcript(claude.EncodeProjectDir(tokyo), "c-1.jsonl", time.Now(), record("user", tokyo))
	ws := scan()
	reads(1, "files appearing without a write")
	if _, ok := ws["w-osaka"]; !ok {
		t.Error("a worktree made after the row was written is not found")
	}
	if ss := ws["w-tokyo"].Sessions; len(ss) != 1 || ss[0].Transcript == "" {
		t.Errorf("the tab's transcript is not confirmed: %+v", ss)
	}

	// Conductor commits (another connection): the next scan reads it.
	db := openRW(t, h.db)
	execAll(t, db, `UPDATE workspaces SET workspace_name = 'Renamed' WHERE id = 'w-tokyo'`)
	db.Close()
	if got := scan()["w-tokyo"].DisplayName; got != "Renamed" {
		t.Errorf("after a commit: display name %q, want Renamed", got)
	}
	reads(2, "a commit by another connection")
	scan()
	reads(2, "a scan after it")

	// The file replaced by a new one (a restore from backup): the kept
	// connection still sees the old file, so it is opened again.
	fresh := filepath.Join(filepath.Dir(h.db), "new.db")
	createDB(t, fresh, conductordb.Schema(t), `
INSERT INTO repos (id, name) VALUES ('r1', 'webapp');
INSERT INTO workspaces (id, repository_id, directory_name, state) VALUES ('w-new', 'r1', 'tokyo', 'ready');`)
	if err := os.Rename(fresh, h.db); err != nil {
		t.Fatal(err)
	}
	if ws := scan(); ws["w-new"].Directory != tokyo || ws["w-tokyo"].ID != "" {
		t.Errorf("after the file was replaced: %+v", ws)
	}
	reads(3, "a replaced file")

	// Gone, then back: an error while gone, a fresh read once back.
	if err := os.Rename(h.db, fresh); err != nil {
		t.Fatal(err)
	}
	scan()
	if err := os.Rename(fresh, h.db); err != nil {
		t.Fatal(err)
	}
	if ws := scan(); ws["w-new"].Source != SourceConductorDB {
		t.Errorf("after the file came back: %+v", ws)
	}
	reads(4, "a file that came back")
}
