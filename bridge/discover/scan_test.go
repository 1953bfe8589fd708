package discover

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"conductorbridge/bridge/agent/claude"
)

// logLines collects what a Scanner logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, msg)
}

func (l *logLines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

func noProcs() (map[string]int, error) { return nil, nil }

func TestScan(t *testing.T) {
	h := newFakeHome(t)
	now := time.Now()
	tokyo := h.worktree("webapp", "tokyo", "git-branch")
	paris := h.worktree("webapp", "paris", "me/paris")
	lima := h.worktree("api", "lima", "lima-branch") // not in the database
	createDB(t, h.db, conductorSchema, `
		INSERT INTO repos VALUES ('r1', 'webapp', '/src/webapp', 'main', 't');
		INSERT INTO workspaces VALUES
			('old-tokyo', 'r1', 'tokyo', 'old', 'archived', 'idle', NULL, 't'),
			('w-tokyo', 'r1', 'tokyo', 'me/tokyo', 'ready', NULL, 's1', 't'),
			('w-paris', 'r1', 'paris', NULL, 'archived', NULL, NULL, 't'),
			('w-oslo', 'r1', 'oslo', 'me/oslo', 'archived', NULL, NULL, 't');
		INSERT INTO sessions VALUES ('s1', 'w-tokyo', 'working', 'opus', NULL, 't');`)
	oslo := filepath.Join(h.conductor, "workspaces", "webapp", "oslo") // archived, folder gone

	// A registered worktree elsewhere, and tokyo registered too.
	feature := filepath.Join(h.root, "src", "feature")
	makeWorktree(t, filepath.Join(h.root, "src", "proj"), feature, "feature", "ref: refs/heads/feat", false)
	reg := NewRegistry(filepath.Join(h.root, "state", "registered.json"))
	for _, d := range []string{feature, tokyo} {
		if _, err := reg.Add(d); err != nil {
			t.Fatal(err)
		}
	}

	// Transcripts: tokyo's, and a plain Claude Code project.
	plain := mkdir(t, filepath.Join(h.root, "code", "plain"))
	h.transcript(claude.EncodeProjectDir(tokyo), "s1.jsonl", now, record("user", tokyo))
	h.transcript(claude.EncodeProjectDir(plain), "p.jsonl", now, record("user", plain))

	var logs logLines
	s := &Scanner{
		ConductorDB:   h.db,
		ConductorRoot: h.conductor,
		Agents:        []Agent{h.claude()},
		Registry:      reg,
		Log:           logs.log,
		Processes: func() (map[string]int, error) {
			return map[string]int{tokyo: 4242, "/somewhere/else": 7}, nil
		},
	}
	got, err := s.Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pd := func(dir string) string { return filepath.Join(h.projects, claude.EncodeProjectDir(dir)) }
	want := []Workspace{
		{ID: PathID(plain), Name: "plain", Directory: plain, Source: claude.Type, ProjectDir: pd(plain)},
		{ID: PathID(lima), Name: "lima", Repo: "api", Branch: "lima-branch", Directory: lima, Source: SourceConductorFolder, ProjectDir: pd(lima)},
		{ID: PathID(feature), Name: "feature", Repo: "proj", Branch: "feat", Directory: feature, Source: SourceRegistered, ProjectDir: pd(feature)},
		{ID: "w-oslo", Name: "oslo", Repo: "webapp", Branch: "me/oslo", Directory: oslo, Source: SourceConductorDB, Archived: true, ProjectDir: pd(oslo), DisplayName: "me/oslo"},
		{ID: "w-paris", Name: "paris", Repo: "webapp", Branch: "me/paris", Directory: paris, Source: SourceConductorDB, Archived: true, ProjectDir: pd(paris), DisplayName: "paris"},
		{ID: "w-tokyo", Name: "tokyo", Repo: "webapp", Branch: "me/tokyo", Directory: tokyo, Source: SourceConductorDB,
			ConductorStatus: "working", ConductorSession: "s1", ProjectDir: pd(tokyo), PID: 4242, DisplayName: "me/tokyo",
			Sessions: []Session{{ID: "s1", ConductorID: "s1", Agent: claude.Type, Model: "opus", ConductorStatus: "working", Active: true,
				Transcript: filepath.Join(pd(tokyo), "s1.jsonl")}}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d workspaces, want %d:\n%s", len(got), len(want), dump(got))
	}
	for i := range want {
		if got[i].SeenAt.IsZero() {
			t.Errorf("%s: SeenAt not set", got[i].Name)
		}
		got[i].SeenAt = time.Time{}
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("workspace %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if l := logs.get(); len(l) != 0 {
		t.Errorf("logged %q on a healthy scan", l)
	}
}

// TestScanDatabaseFallback: a broken database is logged once, the folders
// stand in, and recovery is logged once.
func TestScanDatabaseFallback(t *testing.T) {
	h := newFakeHome(t)
	tokyo := h.worktree("webapp", "tokyo", "me/tokyo")
	writeFile(t, h.db, strings.Repeat("garbage", 1000))
	var logs logLines
	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Agents: []Agent{h.claude()}, Log: logs.log, Processes: noProcs}

	for range 3 {
		ws, err := s.Scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != 1 || ws[0].Source != SourceConductorFolder || ws[0].Directory != tokyo || ws[0].ID != PathID(tokyo) {
			t.Fatalf("fallback scan: %s", dump(ws))
		}
	}
	if l := logs.get(); len(l) != 1 || !strings.Contains(l[0], "not a database") {
		t.Fatalf("logged %q, want one line about the database", l)
	}

	createDBAt(t, h.db, conductorSchema, `INSERT INTO repos VALUES ('r1', 'webapp', '', '', '');
		INSERT INTO workspaces VALUES ('w1', 'r1', 'tokyo', NULL, 'ready', NULL, NULL, '');`)
	for range 2 {
		ws, err := s.Scan(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) != 1 || ws[0].Source != SourceConductorDB || ws[0].ID != "w1" || ws[0].Branch != "me/tokyo" {
			t.Fatalf("recovered scan: %s", dump(ws))
		}
	}
	if l := logs.get(); len(l) != 2 || !strings.Contains(l[1], "readable again") {
		t.Errorf("logged %q, want a recovery line", l)
	}
}

// createDBAt replaces whatever is at path with a new database.
func createDBAt(t *testing.T, path string, stmts ...string) {
	t.Helper()
	writeFile(t, path, "")
	createDB(t, path, stmts...)
}

func TestScanLogsSchemaGapsOnce(t *testing.T) {
	h := newFakeHome(t)
	createDB(t, h.db, `CREATE TABLE repos (id TEXT, name TEXT); CREATE TABLE workspaces (id TEXT, repository_id TEXT, directory_name TEXT);
		INSERT INTO repos VALUES ('r', 'webapp'); INSERT INTO workspaces VALUES ('w', 'r', 'tokyo');`)
	mkdir(t, filepath.Join(h.conductor, "workspaces", "webapp", "tokyo"))
	var logs logLines
	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Log: logs.log, Processes: noProcs}
	for range 3 {
		if ws, err := s.Scan(context.Background()); err != nil || len(ws) != 1 {
			t.Fatalf("scan: %v, %v", ws, err)
		}
	}
	if l := logs.get(); len(l) != 1 || !strings.Contains(l[0], "workspaces.branch") {
		t.Errorf("logged %q, want one line naming the missing columns", l)
	}
}

// TestScanNothing: every source missing (or unset) is an empty list, not a
// crash and not an error.
func TestScanNothing(t *testing.T) {
	root := t.TempDir()
	scanners := map[string]*Scanner{
		"zero value": {Processes: noProcs},
		"all missing": {
			ConductorDB:   filepath.Join(root, "no", "conductor.db"),
			ConductorRoot: filepath.Join(root, "no", "conductor"),
			Agents:        []Agent{claude.Agent{Projects: filepath.Join(root, "no", "projects")}},
			Registry:      NewRegistry(filepath.Join(root, "no", "registered.json")),
			Processes:     func() (map[string]int, error) { return nil, errors.New("no processes for you") },
		},
		"real processes": {ConductorRoot: filepath.Join(root, "nothing")},
	}
	for name, s := range scanners {
		var logs logLines
		s.Log = logs.log
		for range 2 {
			ws, err := s.Scan(context.Background())
			if err != nil || len(ws) != 0 {
				t.Errorf("%s: got %v, %v", name, ws, err)
			}
		}
		if l := logs.get(); len(l) > 2 {
			t.Errorf("%s: logged %q; want each problem once", name, l)
		}
	}
}

func TestScanCancelled(t *testing.T) {
	h := newFakeHome(t)
	createDB(t, h.db, conductorSchema)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Processes: noProcs}
	if _, err := s.Scan(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestScanConcurrent(t *testing.T) {
	h := newFakeHome(t)
	dir := h.worktree("webapp", "tokyo", "b")
	h.transcript(claude.EncodeProjectDir(dir), "s.jsonl", time.Now(), record("user", dir))
	s := &Scanner{ConductorRoot: h.conductor, Agents: []Agent{h.claude()}, Processes: noProcs}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws, err := s.Scan(context.Background())
			if err != nil || len(ws) != 1 {
				t.Errorf("scan: %v, %v", ws, err)
			}
		}()
	}
	wg.Wait()
}

func TestMerge(t *testing.T) {
	db := []Workspace{
		{ID: "a-old", Directory: "/w/a", Source: SourceConductorDB, Archived: true, Branch: "stale"},
		{ID: "a", Directory: "/w/a", Source: SourceConductorDB},
		{ID: "b", Directory: "/w/b", Source: SourceConductorDB, Branch: "db-branch"},
		{ID: "b-old", Directory: "/w/b", Source: SourceConductorDB, Archived: true, Branch: "stale", ConductorStatus: "idle"},
		{ID: "nodir", Source: SourceConductorDB},
	}
	folders := []Workspace{
		{Directory: "/w/a", Source: SourceConductorFolder, Branch: "git-branch", Repo: "r"},
		{Directory: "/w/b", Source: SourceConductorFolder, Branch: "git-branch"},
	}
	claude := []Workspace{{Directory: "/w/a", Source: claude.Type, ProjectDir: "/p/a", Name: "a"}}
	got := merge(db, folders, nil, claude)
	want := []Workspace{
		{ID: "a", Name: "a", Repo: "r", Branch: "git-branch", Directory: "/w/a", Source: SourceConductorDB, ProjectDir: "/p/a"},
		{ID: "b", Branch: "db-branch", Directory: "/w/b", Source: SourceConductorDB},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", dump(got), dump(want))
	}
}

func TestURLSafe(t *testing.T) {
	for id, want := range map[string]bool{
		"w1": true, "0f8fad5b-d9cb-469f-a165-70867728950e": true, "a_b.c~d": true,
		"": false, ".": false, "..": false, "a/b": false, "a b": false, "é": false, "a?b": false,
	} {
		if got := urlSafe(id); got != want {
			t.Errorf("urlSafe(%q) = %v", id, got)
		}
	}
}

func dump(ws []Workspace) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "  %+v\n", w)
	}
	return b.String()
}

// BenchmarkScan measures a scan of 200 Conductor workspaces, each with a
// transcript, once the cache is warm: the cost of every two seconds.
func BenchmarkScan(b *testing.B) {
	h := newFakeHome(b)
	var rows []string
	old := time.Now().Add(-time.Hour)
	for i := range 200 {
		name := fmt.Sprintf("ws%03d", i)
		dir := h.worktree("webapp", name, "b"+name)
		h.transcript(claude.EncodeProjectDir(dir), "s.jsonl", old, record("user", dir), strings.Repeat(`{"type":"assistant"}`+"\n", 1000))
		// Folders as old as real ones: their listings can be trusted.
		if err := os.Chtimes(filepath.Join(h.projects, claude.EncodeProjectDir(dir)), old, old); err != nil {
			b.Fatal(err)
		}
		rows = append(rows, fmt.Sprintf("('%s', 'r1', '%s', 'b', 'ready', NULL, 's%d', '')", name, name, i))
	}
	createDB(b, h.db, conductorSchema, "INSERT INTO repos VALUES ('r1', 'webapp', '', '', '')",
		"INSERT INTO workspaces VALUES "+strings.Join(rows, ", "))
	s := &Scanner{ConductorDB: h.db, ConductorRoot: h.conductor, Agents: []Agent{h.claude()}}
	if ws, err := s.Scan(context.Background()); err != nil || len(ws) != 200 {
		b.Fatalf("scan: %d, %v", len(ws), err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Scan(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
