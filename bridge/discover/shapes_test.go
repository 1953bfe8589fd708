package discover

import (
	"slices"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb"
	"conductorbridge/bridge/agent/claude"
)

// TestReadConductorBothShapes reads a real SQLite file made from each
// schema public readers found: Conductor 0.72–0.84 (workspaces keyed by
// id) and 0.87–0.90 (local_id the primary key, id an ordinary column that
// sessions still name; tabs archived in the cloud marked by
// remote_archived_at). Workspace ids come from id in both, and a tab
// archived in the cloud is no live tab, nor the source of its workspace's
// status.
func TestReadConductorBothShapes(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			h := newFakeHome(t)
			tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
			h.worktree("webapp", "kyoto", "me/kyoto")
			h.transcript(claude.EncodeProjectDir(tokyo), "c-active.jsonl", time.Now(), record("user", tokyo))

			workspaces := `INSERT INTO workspaces (id, repository_id, directory_name, branch, state, active_session_id) VALUES
 ('w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', 's-active'),
 ('w-kyoto', 'r1', 'kyoto', 'me/kyoto', 'ready', 's-cloud-only');`
			sessions := `INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden) VALUES
 ('s-active', 'w-tokyo', 'needs_user_input', 'claude', 'Main', 'c-active', 0),
 ('s-back', 'w-tokyo', 'working', 'codex', 'Codex', 'thread-1', 0);`
			if shape.LocalID {
				// local_id differs from id, as a row made locally and
				// synced later would; sessions name workspaces by id.
				workspaces = `INSERT INTO workspaces (local_id, id, repository_id, directory_name, branch, state, active_session_id, number, access_level) VALUES
 ('L-7f3a', 'w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', 's-active', 12, 'private'),
 ('L-91bc', 'w-kyoto', 'r1', 'kyoto', 'me/kyoto', 'ready', 's-cloud-only', 13, 'private');`
				sessions = `INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden, remote_archived_at, feed_offset) VALUES
 ('s-active', 'w-tokyo', 'needs_user_input', 'claude', 'Main', 'c-active', 0, NULL, 40),
 ('s-back', 'w-tokyo', 'working', 'codex', 'Codex', 'thread-1', 0, NULL, 0),
 ('s-archived', 'w-tokyo', 'idle', 'claude', 'Old', 'c-archived', 0, '2026-11-20T09:00:00.000Z', 0),
 ('s-cloud-only', 'w-kyoto', 'working', 'claude', 'In the cloud', 'c-cloud', 0, '2026-11-21 08:00:00', 0);
INSERT INTO session_messages_outbox (message_id, session_id, mode, queue_order, delivery_payload, state, send_attempt_count)
 VALUES ('m1', 's-active', 'queue', 0, '{}', 'pending', 0);`
			}
			createDB(t, h.db, shape.Schema, `INSERT INTO repos (id, name) VALUES ('r1', 'webapp');`, workspaces, sessions)

			_, byID := h.readWhole()
			w, ok := byID["w-tokyo"]
			if !ok {
				t.Fatalf("w-tokyo not listed (ids: %v)", keys(byID))
			}
			if len(byID) != 2 {
				t.Errorf("workspaces %v, want w-tokyo and w-kyoto", keys(byID))
			}
			var tabs []string
			for _, s := range w.Sessions {
				tabs = append(tabs, s.ConductorID+"="+s.ID)
			}
			if want := []string{"s-active=c-active", "s-back=thread-1"}; !slices.Equal(tabs, want) {
				t.Errorf("w-tokyo tabs %q, want %q", tabs, want)
			}
			if w.ConductorStatus != "needs_user_input" || w.ConductorSession != "s-active" {
				t.Errorf("w-tokyo status %q session %q", w.ConductorStatus, w.ConductorSession)
			}
			kyoto := byID["w-kyoto"]
			if len(kyoto.Sessions) != 0 || kyoto.ConductorStatus != "" {
				t.Errorf("w-kyoto: sessions %+v status %q; its only tab is archived in the cloud (or absent)", kyoto.Sessions, kyoto.ConductorStatus)
			}
		})
	}
}

func keys(m map[string]Workspace) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
