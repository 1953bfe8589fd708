package discover

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"

	"conductorbridge/benchkit/conductordb"
)

// TestConductorWorkspacesAreReadConductors: ConductorWorkspaces, on a
// connection of the caller's, finds the workspaces ReadConductor finds
// (in their folders, relocated ones included) and the rows that are not
// local (cloud, gone, archived), only without their sessions.
func TestConductorWorkspacesAreReadConductors(t *testing.T) {
	h := newFakeHome(t)
	h.worktree("webapp", "tokyo", "me/tokyo")
	relocated := mkdir(t, filepath.Join(h.root, "elsewhere", "osaka"))
	createDB(t, h.db, conductordb.Schema(t), `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'webapp', '/nowhere/webapp');
INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, workspace_name, branch, state, sandbox_provider) VALUES
 ('w-tokyo', 'r1', 'tokyo', NULL, NULL, 'me/tokyo', 'ready', NULL),
 ('w-osaka', 'r1', 'osaka', '`+relocated+`', 'Osaka work', 'b', 'ready', NULL),
 ('w-cloud', 'r1', 'lima', NULL, 'Cloud one', NULL, 'ready', 'modal'),
 ('w-gone', 'r1', 'oslo', NULL, NULL, NULL, 'ready', NULL),
 ('w-old', 'r1', 'paris', NULL, NULL, NULL, 'archived', NULL);
INSERT INTO sessions (id, workspace_id, status, agent_type, title) VALUES ('s-1', 'w-tokyo', 'idle', 'cursor', 'Tab');`)
	ctx := context.Background()
	want, err := ReadConductor(ctx, h.db, h.conductor)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+h.db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got, err := ConductorWorkspaces(ctx, conn, h.conductor)
	if err != nil {
		t.Fatal(err)
	}
	tabs := 0
	for i := range want.Workspaces {
		tabs += len(want.Workspaces[i].Sessions)
		want.Workspaces[i].Sessions = nil
	}
	if len(want.Workspaces) != 3 || len(want.NotLocal) != 3 || tabs != 1 { // the archived one is both
		t.Fatalf("ReadConductor found %d workspaces, %d rows not local, %d tabs: the fixture is not what it was", len(want.Workspaces), len(want.NotLocal), tabs)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ConductorWorkspaces = %+v\nReadConductor      = %+v", got, want)
	}
	if _, err := ConductorWorkspaces(ctx, conn, ""); err == nil {
		t.Error("no conductor root: no error")
	}
}
