package engine

import (
	"conductorbridge/benchkit/conductordb"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"conductorbridge/bridge/agent/claude"
	"conductorbridge/bridge/discover"
	"conductorbridge/bridge/event"
)

// countingScanner counts scans.
type countingScanner struct {
	inner Scanner
	n     atomic.Int32
	block atomic.Pointer[chan struct{}] // when set, a scan waits on it: a locked database
}

func (s *countingScanner) Scan(ctx context.Context) ([]discover.Workspace, error) {
	s.n.Add(1)
	if b := s.block.Load(); b != nil {
		select {
		case <-*b:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return s.inner.Scan(ctx)
}

// A commit to Conductor's database (a real file made from schema.sql, in
// WAL mode as Conductor keeps it) is noticed through the watch on it: the
// new workspace appears with the scan timer an hour away. Scans that find
// data_version unchanged do not query the tables.
func TestDatabaseWriteIsNoticedWithoutTheTimer(t *testing.T) {
	h := newHome(t)
	root := filepath.Join(h.root, "conductor")
	dbPath := filepath.Join(h.root, "conductor.db")
	db, err := sql.Open("sqlite", dbPath+"?_pragma=journal_mode(wal)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{conductordb.Schema(t), `INSERT INTO repos (id, name) VALUES ('r1', 'webapp')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(root, "workspaces", "webapp", "tokyo")
	os.MkdirAll(dir, 0o755)
	scanner := &discover.Scanner{ConductorDB: dbPath, ConductorRoot: root, Agents: []discover.Agent{claude.Agent{Projects: h.projects}},
		Processes: func() (map[string]int, error) { return nil, nil }}
	defer scanner.Close()
	cs := &countingScanner{inner: scanner}
	r := h.startWith(func(c *Config) {
		c.Scanner = cs
		c.ScanEvery, c.SweepEvery = time.Hour, time.Hour
		c.RescanOn = []string{dbPath, dbPath + "-wal"}
	})
	<-r.eng.Ready()
	before, reads := cs.n.Load(), scanner.DatabaseReads()
	if _, err := db.Exec(`INSERT INTO workspaces (id, repository_id, directory_name, state) VALUES ('w1', 'r1', 'tokyo', 'ready')`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new workspace", func() bool { _, ok := r.eng.Workspace("w1"); return ok })
	if cs.n.Load() == before {
		t.Error("found without a scan?")
	}
	if got := scanner.DatabaseReads(); got <= reads {
		t.Errorf("the tables were read %d times before the write and %d after", reads, got)
	}
	reads = scanner.DatabaseReads()
	for range 3 {
		r.eng.scan(context.Background())
	}
	if got := scanner.DatabaseReads(); got != reads {
		t.Errorf("scans of an unchanged database read the tables %d more times", got-reads)
	}
}

// A scan that hangs (a locked database) never holds up the sessions:
// lines keep streaming while it waits.
func TestAHangingScanDoesNotStallStreaming(t *testing.T) {
	h := newHome(t)
	const a = "aaaaaaaa-1111-4111-8111-0000000000d1"
	dir, path := h.session("busy", a)
	h.write(path, prompt(a, "first"))
	cs := &countingScanner{inner: &discover.Scanner{Agents: []discover.Agent{claude.Agent{Projects: h.projects}}}}
	r := h.startWith(func(c *Config) { c.Scanner = cs; c.ScanEvery = 20 * time.Millisecond; c.ScanTimeout = time.Hour })
	id := r.waitWorkspace(t, dir)
	r.collect(t, id, 0, has("user", "first"))
	block := make(chan struct{}) // the next scans hang
	cs.block.Store(&block)
	defer close(block)
	waitFor(t, "a scan to hang", func() bool { n := cs.n.Load(); time.Sleep(50 * time.Millisecond); return cs.n.Load() == n })
	for i := range 3 {
		text := fmt.Sprintf("while scanning %d", i)
		h.write(path, prompt(a, text))
		r.collect(t, id, 0, has("user", text))
	}
}

// A hook names a session before Claude Code has made its transcript
// folder, or (on a fresh machine) before even the projects folder exists.
// When the folders appear they are watched at once: the first lines stream
// from file events, not from a sweep (here too slow to help).
func TestFoldersMadeAfterTheHook(t *testing.T) {
	for _, tt := range []struct {
		name, missing string
	}{
		{"project folder", "project"},
		{"projects folder", ".claude"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			dir, proj := h.workspace("late")
			gone := proj
			if tt.missing == ".claude" {
				gone = filepath.Join(h.root, ".claude")
			}
			if err := os.RemoveAll(gone); err != nil {
				t.Fatal(err)
			}
			sid := "bbbbbbbb-1111-4111-8111-0000000000b1"
			cwdOf[sid] = dir
			r := h.startWith(func(c *Config) { c.SweepEvery, c.ScanEvery, c.IdleScanEvery = time.Hour, time.Hour, time.Hour })
			<-r.eng.Ready()
			path := filepath.Join(proj, sid+".jsonl")
			id, ok := r.eng.Hint(context.Background(), dir, path)
			if !ok {
				t.Fatal("the hook's workspace was not adopted")
			}
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			h.write(path, prompt(sid, "first"))
			r.collect(t, id, 0, has(event.User, "first"))
			h.write(path, answer(sid, "m1", "second", "end_turn"))
			r.collect(t, id, 0, has(event.Assistant, "second"))
		})
	}
}
