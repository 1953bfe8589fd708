package discover

import (
	"conductorbridge/benchkit/conductordb"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
)

// TestReadConductorFixture reads a real SQLite file made from schema.sql:
// three tabs (active, background, hidden), a Codex tab, a relocated
// workspace found only through workspace_path, a legacy .conductor one,
// a cloud row, a row whose directory is gone, an archived row, both
// timestamp formats, and the names a person sees.
func TestReadConductorFixture(t *testing.T) {
	h := newFakeHome(t)
	tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
	relocated := mkdir(t, filepath.Join(h.root, "elsewhere", "osaka"))
	repoRoot := filepath.Join(h.root, "code", "legacy")
	legacy := mkdir(t, filepath.Join(repoRoot, ".conductor", "rome"))
	enc := filepath.Join(h.projects, claude.EncodeProjectDir(tokyo))
	h.transcript(claude.EncodeProjectDir(tokyo), "c-active.jsonl", time.Now(), record("user", tokyo))
	h.transcript(claude.EncodeProjectDir(tokyo), "s-back.jsonl", time.Now(), record("user", tokyo)) // confirmed by sessions.id

	schema := conductordb.Schema(t)
	createDB(t, h.db, schema, `
INSERT INTO repos (id, name, root_path) VALUES ('r1', 'webapp', '/nowhere/webapp'), ('r2', 'legacy', '`+repoRoot+`');
INSERT INTO workspaces (id, repository_id, directory_name, workspace_path, workspace_name, branch, pr_title, state,
	derived_status, manual_status, active_session_id, sandbox_provider, hosting_server_url, updated_at) VALUES
 ('w-tokyo', 'r1', 'tokyo', NULL, NULL, 'me/tokyo', 'Fix login', 'ready', 'in-progress', NULL, 's-active', NULL, NULL, '2026-11-02 10:00:00'),
 ('w-osaka', 'r1', 'osaka', '`+relocated+`', 'Osaka work', 'b', NULL, 'ready', 'backlog', 'in-review', NULL, NULL, NULL, '2026-11-02T10:00:00.123Z'),
 ('w-rome', 'r2', 'rome', NULL, NULL, NULL, NULL, 'ready', NULL, NULL, NULL, NULL, NULL, NULL),
 ('w-cloud', 'r1', 'lima', NULL, 'Cloud one', NULL, NULL, 'ready', NULL, NULL, NULL, 'modal', NULL, NULL),
 ('w-cloud2', 'r1', 'quito', NULL, NULL, NULL, NULL, 'ready', NULL, NULL, NULL, NULL, 'https://x.example', NULL),
 ('w-gone', 'r1', 'oslo', NULL, NULL, NULL, NULL, 'ready', NULL, NULL, NULL, NULL, NULL, NULL),
 ('w-old', 'r1', 'paris', NULL, NULL, NULL, NULL, 'archived', NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden, model, unread_count, updated_at) VALUES
 ('s-active', 'w-tokyo', 'needs_user_input', NULL, 'Main', 'c-active', 0, 'opus', 0, '2026-11-02 10:00:00'),
 ('s-back', 'w-tokyo', 'needs_plan_response', 'anthropic', 'Plan', NULL, 0, 'sonnet', 1, '2026-11-02T10:00:01.500Z'),
 ('s-hidden', 'w-tokyo', 'idle', 'claude', 'Closed', 'c-hidden', 1, 'opus', 0, NULL),
 ('s-codex', 'w-tokyo', 'working', 'codex', 'Codex', 'thread-1', 0, 'gpt-5.5', 0, NULL);`)

	got, byID := h.readWhole()
	for _, tt := range []struct{ id, dir, display, workflow string }{
		{"w-tokyo", tokyo, "Fix login", "in-progress"},
		{"w-osaka", relocated, "Osaka work", "in-review"},
		{"w-rome", legacy, "rome", ""},
	} {
		w, ok := byID[tt.id]
		if !ok {
			t.Errorf("%s not listed", tt.id)
			continue
		}
		if w.Directory != tt.dir || w.DisplayName != tt.display || w.Workflow != tt.workflow || w.ConductorStatus == "in-progress" {
			t.Errorf("%s: dir %q display %q workflow %q status %q; want %q %q %q", tt.id, w.Directory, w.DisplayName, w.Workflow, w.ConductorStatus, tt.dir, tt.display, tt.workflow)
		}
	}
	if w := byID["w-tokyo"]; w.Name != "tokyo" {
		t.Errorf("name = %q, want the codename", w.Name)
	}
	wantSessions := []Session{
		{ID: "c-active", ConductorID: "s-active", Agent: claude.Type, Title: "Main", Model: "opus", Transcript: filepath.Join(enc, "c-active.jsonl"),
			ConductorStatus: "needs_user_input", Active: true, UpdatedAt: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)},
		{ID: "s-back", ConductorID: "s-back", Agent: claude.Type, Title: "Plan", Model: "sonnet", Transcript: filepath.Join(enc, "s-back.jsonl"),
			ConductorStatus: "needs_plan_response", Unread: 1, UpdatedAt: time.Date(2026, 11, 2, 10, 0, 1, 500e6, time.UTC)},
		{ID: "thread-1", ConductorID: "s-codex", Agent: "codex", Title: "Codex", Model: "gpt-5.5", ConductorStatus: "working"},
	}
	gotS := byID["w-tokyo"].Sessions
	slices.SortFunc(gotS, func(a, b Session) int { return strings.Compare(a.ConductorID, b.ConductorID) })
	slices.SortFunc(wantSessions, func(a, b Session) int { return strings.Compare(a.ConductorID, b.ConductorID) })
	if !reflect.DeepEqual(gotS, wantSessions) {
		t.Errorf("sessions:\n got %+v\nwant %+v", gotS, wantSessions)
	}
	wantNL := map[string]string{"w-cloud": NotLocalCloud, "w-cloud2": NotLocalCloud, "w-gone": NotLocalNoDirectory, "w-old": NotLocalArchived}
	gotNL := map[string]string{}
	for _, n := range got.NotLocal {
		gotNL[n.ID] = n.Why
	}
	if !reflect.DeepEqual(gotNL, wantNL) {
		t.Errorf("not local = %v, want %v", gotNL, wantNL)
	}
	for _, id := range []string{"w-cloud", "w-cloud2", "w-gone"} {
		if _, ok := byID[id]; ok {
			t.Errorf("%s listed as a local workspace", id)
		}
	}
}
