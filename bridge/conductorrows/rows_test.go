package conductorrows

import (
	"context"
	"database/sql"
	"net/url"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"conductorbridge/benchkit/conductordb" // the real schema, and the "sqlite" driver
)

// newDB makes a SQLite file from stmts and returns it open.
func newDB(t *testing.T, stmts ...string) *sql.DB {
	t.Helper()
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(t.TempDir(), "conductor.db"))}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}

// TestReadBothShapes reads the rows of a database made from each schema
// real installs have: Conductor 0.72–0.84 (workspaces keyed by id) and
// 0.87–0.90 (local_id the key, id an ordinary column that sessions name;
// a tab archived in the cloud marked by remote_archived_at). A workspace
// is its id in both; an active tab archived in the cloud gives its
// workspace no status; both timestamp formats are kept as written.
func TestReadBothShapes(t *testing.T) {
	for _, shape := range conductordb.Shapes(t) {
		t.Run(shape.Name, func(t *testing.T) {
			workspaces := `INSERT INTO workspaces (id, repository_id, directory_name, branch, state, derived_status, active_session_id, workspace_name) VALUES
 ('w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', 'in-progress', 's-active', 'Tokyo'),
 ('w-kyoto', 'r1', 'kyoto', 'me/kyoto', 'archived', NULL, 's-cloud-only', NULL);`
			sessions := `INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden, model, unread_count, updated_at) VALUES
 ('s-active', 'w-tokyo', 'needs_user_input', 'claude', 'Main', 'c-active', 0, 'opus', 1, '2026-11-20 09:00:00'),
 ('s-back', 'w-tokyo', 'working', 'codex', 'Codex', 'thread-1', 1, NULL, 0, '2026-11-20T09:00:01.500Z');`
			if shape.LocalID {
				workspaces = `INSERT INTO workspaces (local_id, id, repository_id, directory_name, branch, state, derived_status, active_session_id, workspace_name, number, access_level) VALUES
 ('L-7f3a', 'w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', 'in-progress', 's-active', 'Tokyo', 12, 'private'),
 ('L-91bc', 'w-kyoto', 'r1', 'kyoto', 'me/kyoto', 'archived', NULL, 's-cloud-only', NULL, 13, 'private');`
				sessions = `INSERT INTO sessions (id, workspace_id, status, agent_type, title, claude_session_id, is_hidden, model, unread_count, updated_at, remote_archived_at, feed_offset) VALUES
 ('s-active', 'w-tokyo', 'needs_user_input', 'claude', 'Main', 'c-active', 0, 'opus', 1, '2026-11-20 09:00:00', NULL, 40),
 ('s-back', 'w-tokyo', 'working', 'codex', 'Codex', 'thread-1', 1, NULL, 0, '2026-11-20T09:00:01.500Z', NULL, 0),
 ('s-cloud-only', 'w-kyoto', 'working', 'claude', 'In the cloud', 'c-cloud', 0, NULL, 0, NULL, '2026-11-21 08:00:00', 0);`
			}
			db := newDB(t, shape.Schema, `INSERT INTO repos (id, name, root_path) VALUES ('r1', 'webapp', '/src/webapp');`, workspaces, sessions)

			got, err := Read(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			want := Rows{
				Workspaces: []Workspace{
					{ID: "w-tokyo", DirectoryName: "tokyo", Branch: "me/tokyo", State: "ready", DerivedStatus: "in-progress", ActiveSessionID: "s-active",
						RepoName: "webapp", RepoRootPath: "/src/webapp", SessionStatus: "needs_user_input", AgentSessionID: "c-active", Name: "Tokyo"},
					{ID: "w-kyoto", DirectoryName: "kyoto", Branch: "me/kyoto", State: "archived", ActiveSessionID: "s-cloud-only",
						RepoName: "webapp", RepoRootPath: "/src/webapp"},
				},
				Sessions: []Session{
					{ID: "s-active", WorkspaceID: "w-tokyo", AgentSessionID: "c-active", AgentType: "claude", Title: "Main", Status: "needs_user_input",
						Model: "opus", Updated: "2026-11-20 09:00:00", Unread: 1},
					{ID: "s-back", WorkspaceID: "w-tokyo", AgentSessionID: "thread-1", AgentType: "codex", Title: "Codex", Status: "working",
						Updated: "2026-11-20T09:00:01.500Z", Hidden: 1},
				},
			}
			if shape.LocalID {
				want.Sessions = append(want.Sessions, Session{ID: "s-cloud-only", WorkspaceID: "w-kyoto", AgentSessionID: "c-cloud",
					AgentType: "claude", Title: "In the cloud", Status: "working", Archived: true})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestReadOlderSchemas: a column or table an older build lacks reads as
// empty and is named for a human; without the workspaces table, or its id
// or directory_name, the file is not one this reader knows.
func TestReadOlderSchemas(t *testing.T) {
	tests := []struct {
		name        string
		stmts       []string
		want        Rows // Missing aside
		wantErr     string
		wantMissing []string // what Missing names, in order
	}{{
		name: "no branch, state, derived status, nor the agent's session id",
		stmts: []string{`CREATE TABLE repos (id TEXT, name TEXT);
			CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT, active_session_id TEXT);
			CREATE TABLE sessions (id TEXT, workspace_id TEXT, status TEXT);`,
			`INSERT INTO repos VALUES ('r1', 'webapp'); INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo', 's1');
			INSERT INTO sessions VALUES ('s1', 'w1', 'error');`},
		want: Rows{
			Workspaces: []Workspace{{ID: "w1", DirectoryName: "tokyo", ActiveSessionID: "s1", RepoName: "webapp", SessionStatus: "error"}},
			Sessions:   []Session{{ID: "s1", WorkspaceID: "w1", Status: "error"}},
		},
		wantMissing: []string{"workspaces.branch", "workspaces.state", "workspaces.derived_status", "sessions.claude_session_id"},
	}, {
		name: "sessions without workspace_id: no tab can be placed",
		stmts: []string{`CREATE TABLE workspaces (id INTEGER, directory_name TEXT, branch TEXT, state TEXT, derived_status TEXT, active_session_id INTEGER);
			CREATE TABLE sessions (id INTEGER, status TEXT);`,
			`INSERT INTO workspaces VALUES (7, 'tokyo', 'b', 'ready', NULL, 9); INSERT INTO sessions VALUES (9, 'working');`},
		want: Rows{
			Workspaces: []Workspace{{ID: "7", DirectoryName: "tokyo", Branch: "b", State: "ready", ActiveSessionID: "9", SessionStatus: "working"}},
		},
		wantMissing: []string{"repos table", "sessions.claude_session_id"},
	}, {
		name:    "no workspaces table",
		stmts:   []string{`CREATE TABLE notes (id TEXT);`},
		wantErr: "no workspaces table",
	}, {
		name:    "workspaces without directory_name",
		stmts:   []string{`CREATE TABLE workspaces (id TEXT, branch TEXT);`},
		wantErr: "no directory_name column",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(context.Background(), newDB(t, tt.stmts...))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			missing := got.Missing
			got.Missing = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("read\n%+v\nwant\n%+v", got, tt.want)
			}
			if len(missing) != len(tt.wantMissing) {
				t.Fatalf("missing %q, want %d like %q", missing, len(tt.wantMissing), tt.wantMissing)
			}
			for i, m := range tt.wantMissing {
				if !strings.HasPrefix(missing[i], m) {
					t.Errorf("missing[%d] = %q, want it about %q", i, missing[i], m)
				}
			}
		})
	}
}

// TestParseTime: both formats Conductor writes in one column, as UTC.
func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2026-11-20 09:00:00", time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)},
		{"2026-11-20T09:00:01.500Z", time.Date(2026, 11, 20, 9, 0, 1, 500_000_000, time.UTC)},
		{"2026-11-20T09:00:01.5", time.Date(2026, 11, 20, 9, 0, 1, 500_000_000, time.UTC)},
		{"2026-11-20T10:00:00+01:00", time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)},
		{"yesterday", time.Time{}},
		{"", time.Time{}},
	}
	for _, tt := range tests {
		if got := ParseTime(tt.in); !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestReadTabAgents: each tab's id, workspace and agent type, by id,
// hidden and archived tabs included, in both real shapes and in an older
// build's with no agent_type column (a tab there is Claude's: "", as a
// NULL agent_type is); a sessions table without workspace_id is an error.
func TestReadTabAgents(t *testing.T) {
	type test struct {
		name  string
		stmts []string
		want  []TabAgent
	}
	var tests []test
	for _, shape := range conductordb.Shapes(t) {
		sessions := `INSERT INTO sessions (id, workspace_id, agent_type, is_hidden) VALUES
 ('s-c', 'w-kyoto', 'cursor', 1), ('s-a', 'w-tokyo', 'claude', 0), ('s-b', 'w-tokyo', NULL, 0);`
		want := []TabAgent{{"s-a", "w-tokyo", "claude"}, {"s-b", "w-tokyo", ""}, {"s-c", "w-kyoto", "cursor"}}
		if shape.LocalID {
			sessions += ` INSERT INTO sessions (id, workspace_id, agent_type, remote_archived_at) VALUES ('s-0', 'w-kyoto', 'devin-2', '2026-11-21 08:00:00');`
			want = append([]TabAgent{{"s-0", "w-kyoto", "devin-2"}}, want...)
		}
		tests = append(tests, test{name: shape.Name, stmts: []string{shape.Schema, sessions}, want: want})
	}
	tests = append(tests, test{
		name: "no agent_type column",
		stmts: []string{`CREATE TABLE sessions (id TEXT, workspace_id TEXT, status TEXT);
			INSERT INTO sessions VALUES ('s-2', 'w1', 'idle'), ('s-1', 'w2', 'working');`},
		want: []TabAgent{{"s-1", "w2", ""}, {"s-2", "w1", ""}},
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadTabAgents(context.Background(), newDB(t, tt.stmts...))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("read %+v\nwant %+v", got, tt.want)
			}
		})
	}
	t.Run("no workspace_id column", func(t *testing.T) {
		db := newDB(t, `CREATE TABLE sessions (id TEXT, agent_type TEXT); INSERT INTO sessions VALUES ('s-1', 'cursor');`)
		if got, err := ReadTabAgents(context.Background(), db); err == nil {
			t.Errorf("read %+v, want an error", got)
		}
	})
}
