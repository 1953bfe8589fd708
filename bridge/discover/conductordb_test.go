package discover

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const conductorRows = `
INSERT INTO repos VALUES ('r1', 'webapp', '/Users/me/code/webapp', 'main', 't'), ('r2', 'api', '/Users/me/code/api', 'main', 't');
INSERT INTO workspaces VALUES
	('w1', 'r1', 'tokyo', 'me/tokyo', 'ready', 'working', 's1', 't'),
	('w2', 'r1', 'paris', 'me/paris', 'archived', 'idle', NULL, 't'),
	('w3', 'r2', 'lima', 'me/lima', 'ready', NULL, 's3', 't');
INSERT INTO sessions VALUES ('s1', 'w1', 'working', 'opus', 'c1', 't'), ('s3', 'w3', 'idle', 'sonnet', '', 't');
`

func TestReadConductorDB(t *testing.T) {
	tests := []struct {
		name        string
		schema      string
		rows        string
		folders     [][2]string // repo, workspace folders to create
		want        []Workspace // Source and Directory are filled in by the test
		wantMissing []string    // substrings, one per missing feature
	}{{
		name:   "full schema",
		schema: conductorSchema,
		rows:   conductorRows,
		want: []Workspace{
			{ID: "w1", Name: "tokyo", Repo: "webapp", Branch: "me/tokyo", ConductorStatus: "working", ConductorSession: "s1", Workflow: "working"},
			{ID: "w2", Name: "paris", Repo: "webapp", Branch: "me/paris", Archived: true, Workflow: "idle"},
			{ID: "w3", Name: "lima", Repo: "api", Branch: "me/lima", ConductorStatus: "idle", ConductorSession: "s3"},
		},
	}, {
		name: "old workspaces table",
		schema: `CREATE TABLE repos (id TEXT, name TEXT);
			CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT, active_session_id TEXT);
			CREATE TABLE sessions (id TEXT, status TEXT);`,
		rows: `INSERT INTO repos VALUES ('r1', 'webapp');
			INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo', 's1'), ('w2', 'r1', 'paris', NULL);
			INSERT INTO sessions VALUES ('s1', 'error');`,
		want: []Workspace{
			{ID: "w1", Name: "tokyo", Repo: "webapp", ConductorStatus: "error", ConductorSession: "s1"},
			{ID: "w2", Name: "paris", Repo: "webapp"},
		},
		wantMissing: []string{"workspaces.branch", "workspaces.state", "workspaces.derived_status", "sessions.claude_session_id"},
	}, {
		name: "no sessions table",
		schema: `CREATE TABLE repos (id TEXT, name TEXT);
			CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT, branch TEXT, state TEXT,
				derived_status TEXT, active_session_id TEXT);`,
		rows: `INSERT INTO repos VALUES ('r1', 'webapp');
			INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo', 'b', 'ready', 'working', 's1');`,
		want: []Workspace{
			{ID: "w1", Name: "tokyo", Repo: "webapp", Branch: "b", ConductorSession: "s1", Workflow: "working"},
		},
		wantMissing: []string{"sessions table"},
	}, {
		name:   "no active_session_id",
		schema: `CREATE TABLE repos (id TEXT, name TEXT); CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT);` + `CREATE TABLE sessions (id TEXT, status TEXT);`,
		rows:   `INSERT INTO repos VALUES ('r1', 'webapp'); INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo');`,
		want: []Workspace{
			{ID: "w1", Name: "tokyo", Repo: "webapp"},
		},
		wantMissing: []string{"workspaces.branch", "workspaces.state", "workspaces.derived_status", "workspaces.active_session_id"},
	}, {
		name:    "no repos table: repository guessed from the folders",
		schema:  `CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT, branch TEXT, state TEXT, derived_status TEXT, active_session_id TEXT);`,
		rows:    `INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo', 'b', 'ready', NULL, NULL), ('w2', 'r1', 'nowhere', 'b', 'ready', NULL, NULL);`,
		folders: [][2]string{{"webapp", "tokyo"}},
		want: []Workspace{
			{ID: "w1", Name: "tokyo", Repo: "webapp", Branch: "b"},
		},
		wantMissing: []string{"repos table", "sessions table", "1 workspace rows skipped"},
	}, {
		name:        "repos without name: folder, then root_path",
		schema:      `CREATE TABLE repos (id TEXT, root_path TEXT); CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT);`,
		rows:        `INSERT INTO repos VALUES ('r1', '/src/webapp/'), ('r2', '/src/api'); INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo'), ('w2', 'r2', 'lima');`,
		folders:     [][2]string{{"web", "tokyo"}},
		want:        []Workspace{{ID: "w1", Name: "tokyo", Repo: "web"}, {ID: "w2", Name: "lima", Repo: "api"}},
		wantMissing: []string{"workspaces.branch", "workspaces.state", "workspaces.derived_status", "workspaces.active_session_id", "repos.name"},
	}, {
		name:   "integer ids and odd rows",
		schema: `CREATE TABLE repos (id INTEGER, name TEXT); CREATE TABLE workspaces (id INTEGER, repository_id INTEGER, directory_name TEXT, state TEXT, active_session_id INTEGER); CREATE TABLE sessions (id INTEGER, status TEXT, claude_session_id TEXT);`,
		rows: `INSERT INTO repos VALUES (1, 'webapp'), (2, '..');
			INSERT INTO workspaces VALUES (7, 1, 'tokyo', 'ready', 9), (8, 1, NULL, 'ready', NULL), (9, 1, '../../etc', 'ready', NULL), (10, 2, 'x', 'ready', NULL), (11, 3, 'orphan', 'ready', NULL);
			INSERT INTO sessions VALUES (9, 'working', 'abc');`,
		want:        []Workspace{{ID: "7", Name: "tokyo", Repo: "webapp", ConductorStatus: "working", ConductorSession: "9"}},
		wantMissing: []string{"workspaces.branch", "workspaces.derived_status", "4 workspace rows skipped"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newFakeHome(t)
			createDB(t, h.db, tt.schema, tt.rows)
			for _, w := range tt.want { // a row whose directory is gone is not local
				mkdir(t, filepath.Join(h.conductor, "workspaces", w.Repo, w.Name))
			}
			for _, f := range tt.folders {
				mkdir(t, filepath.Join(h.conductor, "workspaces", f[0], f[1]))
			}
			got, missing, err := ReadConductorDB(context.Background(), h.db, h.conductor)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				w := &tt.want[i]
				w.Source = SourceConductorDB
				w.DisplayName = cmp.Or(w.Branch, w.Name)
				w.Directory = filepath.Join(h.conductor, "workspaces", w.Repo, w.Name)
			}
			slices.SortFunc(got, func(a, b Workspace) int { return strings.Compare(a.ID, b.ID) })
			for i := range got {
				got[i].Sessions = nil // TestReadConductorFixture covers them
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("workspaces:\n got %+v\nwant %+v", got, tt.want)
			}
			if len(missing) != len(tt.wantMissing) {
				t.Errorf("missing = %q, want %d entries like %q", missing, len(tt.wantMissing), tt.wantMissing)
			}
			for _, m := range tt.wantMissing {
				if !slices.ContainsFunc(missing, func(s string) bool { return strings.Contains(s, m) }) {
					t.Errorf("missing = %q, want one mentioning %q", missing, m)
				}
			}
		})
	}
}

func TestReadConductorDBErrors(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, path string)
		notExist bool
		wantErr  string
	}{{
		name:     "no file",
		setup:    func(t *testing.T, path string) {},
		notExist: true,
	}, {
		name:    "a directory in its place",
		setup:   func(t *testing.T, path string) { mkdir(t, path) },
		wantErr: "not a regular file",
	}, {
		name:    "not sqlite",
		setup:   func(t *testing.T, path string) { writeFile(t, path, strings.Repeat("this is not a database\n", 400)) },
		wantErr: "not a database",
	}, {
		name:    "empty file",
		setup:   func(t *testing.T, path string) { writeFile(t, path, "") },
		wantErr: "no workspaces table",
	}, {
		name:    "no workspaces table",
		setup:   func(t *testing.T, path string) { createDB(t, path, `CREATE TABLE repos (id TEXT, name TEXT)`) },
		wantErr: "no workspaces table",
	}, {
		name: "no directory_name",
		setup: func(t *testing.T, path string) {
			createDB(t, path, `CREATE TABLE workspaces (id TEXT, name TEXT)`, `INSERT INTO workspaces VALUES ('w', 'n')`)
		},
		wantErr: "no directory_name column",
	}, {
		name: "no id",
		setup: func(t *testing.T, path string) {
			createDB(t, path, `CREATE TABLE workspaces (uid TEXT, directory_name TEXT)`)
		},
		wantErr: "no id column",
	}, {
		name: "unreadable",
		setup: func(t *testing.T, path string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads a mode 000 file")
			}
			createDB(t, path, conductorSchema)
			if err := os.Chmod(path, 0); err != nil {
				t.Fatal(err)
			}
		},
		wantErr: "conductor db",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(resolvePath(t.TempDir()), "conductor.db")
			tt.setup(t, path)
			before := snapshotDir(t, filepath.Dir(path))

			ws, _, err := ReadConductorDB(context.Background(), path, t.TempDir())
			if err == nil {
				t.Fatalf("got %v, want an error", ws)
			}
			if tt.notExist != errors.Is(err, fs.ErrNotExist) {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) = %v, want %v", err, !tt.notExist, tt.notExist)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not mention %q", err, tt.wantErr)
			}
			if after := snapshotDir(t, filepath.Dir(path)); !reflect.DeepEqual(before, after) {
				t.Errorf("reading changed the folder:\nbefore %v\n after %v", before, after)
			}
		})
	}
}

func TestReadConductorDBNoRoot(t *testing.T) {
	h := newFakeHome(t)
	createDB(t, h.db, conductorSchema)
	if _, _, err := ReadConductorDB(context.Background(), h.db, ""); err == nil {
		t.Error("no error without a conductor root")
	}
}

// TestReadConductorDBLeavesFileAlone reads a WAL-mode database that
// Conductor (another connection) holds open with rows still in the WAL: the
// rows are seen, and neither the database nor its WAL changes.
func TestReadConductorDBLeavesFileAlone(t *testing.T) {
	h := newFakeHome(t)
	// A path with characters a URI must escape.
	h.db = filepath.Join(h.root, "App Support #1?", "con%20ductor.db")
	writer := openRW(t, h.db)
	defer writer.Close()
	writer.SetMaxOpenConns(1)
	execAll(t, writer, "PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0", conductorSchema, conductorRows)
	for _, d := range []string{"webapp/tokyo", "webapp/paris", "api/lima"} {
		mkdir(t, filepath.Join(h.conductor, "workspaces", d))
	}
	if _, err := os.Stat(h.db + "-wal"); err != nil {
		t.Fatalf("no WAL file: %v", err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range []string{h.db, h.db + "-wal"} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	dbBefore, walBefore := readBytes(t, h.db), readBytes(t, h.db+"-wal")

	for range 3 {
		ws, missing, err := ReadConductorDB(context.Background(), h.db, h.conductor)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != 3 || len(missing) != 0 {
			t.Fatalf("got %d workspaces, missing %q; want 3 from the WAL", len(ws), missing)
		}
	}

	if !bytes.Equal(dbBefore, readBytes(t, h.db)) {
		t.Error("database bytes changed")
	}
	if !bytes.Equal(walBefore, readBytes(t, h.db+"-wal")) {
		t.Error("WAL bytes changed")
	}
	for _, p := range []string{h.db, h.db + "-wal"} {
		if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(old) {
			t.Errorf("%s modified (%v)", p, err)
		}
	}
}

// TestReadConductorDBLocked: a writer holding an exclusive lock on a
// rollback-journal database makes the read fail after the busy timeout,
// with an error, not a hang or a panic.
func TestReadConductorDBLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the 2 s busy timeout")
	}
	h := newFakeHome(t)
	createDB(t, h.db, conductorSchema, conductorRows)
	writer := openRW(t, h.db)
	defer writer.Close()
	ctx := context.Background()
	conn, err := writer.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE workspaces SET branch = 'x'"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	_, _, err = ReadConductorDB(ctx, h.db, h.conductor)
	if err == nil {
		t.Fatal("read a database under an exclusive lock")
	}
	t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// snapshotDir maps each file in dir to its content, to tell whether
// anything was created, changed or removed.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	snap := make(map[string]string)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			snap[e.Name()] = "dir"
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			snap[e.Name()] = "unreadable"
			continue
		}
		snap[e.Name()] = string(b)
	}
	return snap
}
