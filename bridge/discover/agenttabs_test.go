package discover

import (
	"context"
	"strings"
	"testing"

	"conductorbridge/benchkit/conductordb"
)

// TestConductorTabsOfAgentsWithNoReader: a Cursor tab and a tab of an
// agent type the bridge does not know are listed in both schema shapes,
// by their Conductor id (what Conductor's own record, session_messages,
// names them by) and under their own agent, with no transcript; hidden
// tabs and, in the newer shape, tabs archived in the cloud are not.
func TestConductorTabsOfAgentsWithNoReader(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			h := newFakeHome(t)
			h.worktree("webapp", "tokyo", "me/tokyo")
			ws := `INSERT INTO workspaces (id, repository_id, directory_name, branch, state, active_session_id) VALUES ('w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', 's-cursor');`
			archived := ""
			if shape.LocalID {
				ws = `INSERT INTO workspaces (local_id, id, repository_id, directory_name, branch, state, active_session_id) VALUES ('L-1', 'w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', 's-cursor');`
				archived = `INSERT INTO sessions (id, workspace_id, status, agent_type, title, remote_archived_at) VALUES ('s-gone', 'w-tokyo', 'idle', 'cursor', 'Gone', '2026-11-30T10:00:00.000Z');`
			}
			createDB(t, h.db, shape.Schema, `INSERT INTO repos (id, name) VALUES ('r1', 'webapp');`, ws,
				`INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden) VALUES
 ('s-cursor', 'w-tokyo', 'working', 'cursor', 'Fix CSS', NULL, 0),
 ('s-future', 'w-tokyo', 'idle', 'Devin-2', 'Later', 'dv-77', 0),
 ('s-closed', 'w-tokyo', 'idle', 'cursor', 'Closed', NULL, 1);`, archived)

			got, err := ReadConductor(context.Background(), h.db, h.conductor, h.claude())
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Workspaces) != 1 {
				t.Fatalf("workspaces %+v, want w-tokyo", got.Workspaces)
			}
			var tabs []string
			for _, s := range got.Workspaces[0].Sessions {
				tabs = append(tabs, s.ConductorID+" "+s.ID+" "+s.Agent+" "+s.Title+" "+s.Transcript)
			}
			want := []string{"s-cursor s-cursor cursor Fix CSS ", "s-future dv-77 devin-2 Later "}
			if strings.Join(tabs, "|") != strings.Join(want, "|") {
				t.Errorf("tabs\n %q\nwant\n %q", tabs, want)
			}
		})
	}
}
